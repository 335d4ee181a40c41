import { createParser, MAX_ID_LENGTH } from '../../../src/ingest';

describe('TSV parser', () => {
  const tsv = createParser('tsv');
  it('parses head, relation, tail verbatim', () => {
    expect(tsv.parse('a b\t/film/x "q" `t` ü\tc')).toEqual({
      kind: 'edge',
      head: 'a b',
      relation: '/film/x "q" `t` ü',
      tail: 'c',
    });
  });
  it('refuses the relation name reserved for written suggestions (never a fact)', () => {
    const line = tsv.parse('a\tKGC_SUGGESTED\tb');
    expect(line).toMatchObject({ kind: 'invalid' });
    expect((line as { reason: string }).reason).toMatch(
      /relation name "KGC_SUGGESTED" is reserved/,
    );
    expect(tsv.parse('a\tKGC_SUGGESTED_not\tb')).toMatchObject({ kind: 'edge' });
  });
  it('skips blank lines and reports column counts, empty and overlong ids', () => {
    expect(tsv.parse('')).toEqual({ kind: 'skip' });
    expect(tsv.parse('a\tb')).toEqual({
      kind: 'invalid',
      reason: 'expected 3 tab-separated columns, found 2',
    });
    expect(tsv.parse('\tb\tc')).toEqual({ kind: 'invalid', reason: 'empty head id' });
    expect(tsv.parse(`a\tb\t${'x'.repeat(MAX_ID_LENGTH + 1)}`)).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('tail id is 1025 characters long'),
    });
    expect(tsv.parse('a\tb\u0001\tc')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('control'),
    });
  });
});

describe('CSV parser', () => {
  it('finds the named columns in the header and unquotes fields', () => {
    const csv = createParser('csv', { head: 'src', relation: 'rel', tail: 'dst' });
    expect(csv.parse('extra,dst,rel,src')).toEqual({ kind: 'skip' });
    expect(csv.parse('x,b,"has ""quotes"", commas",a')).toEqual({
      kind: 'edge',
      head: 'a',
      relation: 'has "quotes", commas',
      tail: 'b',
    });
    expect(csv.parse('x,b,c')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('expected 4'),
    });
    expect(csv.parse('x,"b,c,a')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('quote'),
    });
  });
  it('fails the file when the header lacks a column', () => {
    const csv = createParser('csv');
    expect(csv.parse('head,rel,tail')).toMatchObject({
      kind: 'invalid',
      fatal: true,
      reason: expect.stringContaining('no column "relation"'),
    });
  });
});

describe('N-Triples parser', () => {
  const nt = createParser('nt');
  it('makes an edge of IRIs and blank nodes', () => {
    expect(nt.parse('<http://x/a> <http://x/p\\u00FC> _:b1 .')).toEqual({
      kind: 'edge',
      head: 'http://x/a',
      relation: 'http://x/pü',
      tail: '_:b1',
    });
  });
  it('makes a literal object a property of the subject', () => {
    expect(nt.parse('<http://x/a> <http://x/name> "A \\"b\\""@en . # note')).toEqual({
      kind: 'property',
      entity: 'http://x/a',
      key: 'http://x/name',
      value: 'A "b"',
    });
    expect(nt.parse('<a> <p> "3"^^<http://www.w3.org/2001/XMLSchema#int> .')).toMatchObject({
      value: '3',
    });
  });
  it("refuses a literal that would overwrite the entity's id", () => {
    expect(nt.parse('<a> <id> "b" .')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/reserved property/),
    });
    expect(nt.parse('<a> <http://x/id> "b" .')).toMatchObject({ kind: 'property' });
  });
  it('skips comments and reports syntax errors', () => {
    expect(nt.parse('# comment')).toEqual({ kind: 'skip' });
    expect(nt.parse('<a> <p> <b>')).toMatchObject({
      kind: 'invalid',
      reason: "expected '.' after the object",
    });
    expect(nt.parse('<a> "p" <b> .')).toMatchObject({
      kind: 'invalid',
      reason: 'the predicate must be an IRI',
    });
    expect(nt.parse('<a <p> <b> .')).toMatchObject({ kind: 'invalid' });
  });
});
