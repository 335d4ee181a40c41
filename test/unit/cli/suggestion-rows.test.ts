import { formatSuggestions, suggestionRecords } from '../../../src/cli/commands/suggestion-rows';
import type { SuggestionsFile } from '../../../src/model';

const file: SuggestionsFile = {
  format: 1,
  version: 'v1',
  createdAt: '2026-01-01T00:00:00.000Z',
  perRelation: 3,
  entities: 3,
  relations: [
    {
      relation: 'r,1',
      direction: 'tail',
      typed: false,
      rows: [
        [0, 1, 2.5, 0.9],
        [1, 2, 0.5, 0.4],
      ],
    },
    { relation: 'plain', direction: 'head', typed: true, rows: [[2, 0, -1, 0.2]] },
  ],
};
const entities = ['say "hi"', 'a\u00e9b', 'x'];

describe('suggestion export formats', () => {
  it('quotes csv fields with commas and quotes (RFC 4180), with a header and CRLF lines', () => {
    const csv = formatSuggestions(suggestionRecords(file, entities, {}), 'csv');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('head,relation,tail,direction,probability,logit,modelVersion');
    expect(lines[1]).toBe('"say ""hi""","r,1",a\u00e9b,tail,0.9,2.5,v1');
    expect(lines).toHaveLength(5); // header, 3 rows, and the empty string after the last CRLF
  });

  it('writes tsv with a header and jsonl that parses back to the records', () => {
    const records = suggestionRecords(file, entities, {});
    const tsv = formatSuggestions(records, 'tsv').split('\n');
    expect(tsv[0]).toBe('head\trelation\ttail\tdirection\tprobability\tlogit\tmodelVersion');
    expect(tsv[3]).toBe('x\tplain\tsay "hi"\thead\t0.2\t-1\tv1');
    const back = formatSuggestions(records, 'jsonl')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(back).toEqual(records);
  });

  it('filters by relation and minimum probability', () => {
    expect(suggestionRecords(file, entities, { relations: ['plain'] })).toHaveLength(1);
    const high = suggestionRecords(file, entities, { minProbability: 0.4 });
    expect(high.map((r) => r.probability)).toEqual([0.9, 0.4]);
  });

  it('neutralises text cells a spreadsheet would run, in csv and tsv; numbers and jsonl stay raw', () => {
    const hostile: SuggestionsFile = {
      ...file,
      version: '@v1',
      relations: [{ relation: '+r', direction: 'tail', typed: false, rows: [[0, 1, -2.5, 0.1]] }],
    };
    const names = ['=HYPERLINK("http://x","y")', '-1+1', 'plain'];
    const records = suggestionRecords(hostile, names, {});
    const csv = formatSuggestions(records, 'csv').split('\r\n')[1];
    expect(csv).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+r,'-1+1,tail,0.1,-2.5,'@v1`);
    const tsv = formatSuggestions(records, 'tsv').split('\n')[1];
    expect(tsv).toBe(`'=HYPERLINK("http://x","y")\t'+r\t'-1+1\ttail\t0.1\t-2.5\t'@v1`);
    for (const start of ['\t', '\r']) {
      const [row] = suggestionRecords(file, [`${start}x`, 'b', 'c'], {});
      expect(formatSuggestions([row!], 'tsv').split('\n')[1]!.startsWith(`'${start}x`)).toBe(true);
    }
    const back = JSON.parse(formatSuggestions(records, 'jsonl').trim()) as { head: string };
    expect(back.head).toBe(names[0]);
  });
});
