import { bulkIngestProgress } from '../../../src/cli/progress/bulk-ingest-progress';
import type { BulkProgress } from '../../../src/ingest/bulk';

function fakeStream(tty: boolean): NodeJS.WriteStream & { text(): string } {
  const chunks: string[] = [];
  const stream = {
    isTTY: tty,
    columns: 160,
    write(chunk: string) {
      chunks.push(chunk);
      return true;
    },
    text: () => chunks.join(''),
  };
  return stream as unknown as NodeJS.WriteStream & { text(): string };
}

const at = (phase: BulkProgress['phase'], fraction: number, stage?: string): BulkProgress => ({
  phase,
  fraction,
  lines: 100,
  triples: 90,
  seconds: 2,
  ...(stage !== undefined ? { stage } : {}),
});

const events: BulkProgress[] = [
  at('prepare', 0.5),
  at('prepare', 1),
  at('import', 0),
  at('import', 0, 'Node import'),
  at('import', 0.1, 'Node import'),
  at('import', 0.25, 'Relationship import'),
  at('start', 0),
  at('migrate', 0),
];

describe('kgc ingest --bulk progress', () => {
  it('writes a line per step and per import stage without a terminal', () => {
    const stream = fakeStream(false);
    const progress = bulkIngestProgress(stream);
    for (const event of events) progress.report(event);
    progress.stop();
    expect(stream.text().split('\n')).toEqual([
      'ingest --bulk phase=import seconds=2.0',
      'ingest --bulk phase=import stage="Node import" progress=0.0%',
      'ingest --bulk phase=import stage="Relationship import" progress=25.0%',
      'ingest --bulk phase=start seconds=2.0',
      'ingest --bulk phase=migrate seconds=2.0',
      '',
    ]);
  });

  it('draws bars for reading the input and for the import on a terminal', () => {
    const stream = fakeStream(true);
    const progress = bulkIngestProgress(stream);
    for (const event of events) progress.report(event);
    progress.stop();
    const text = stream.text();
    expect(text).toMatch(/prepare +\[=+-*\] 100% \| 100 lines \| 45 triples\/s/);
    expect(text).toMatch(/import +\[=*-+\] 25% \| Relationship import/);
    expect(text).toContain('ingest --bulk phase=migrate seconds=2.0');
  });
});
