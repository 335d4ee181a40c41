import { ingestProgress } from '../../../src/cli/progress/ingest-progress';
import { trainingProgress } from '../../../src/cli/progress/training-progress';
import type { TrainingProgress } from '../../../src/model';

/** A stderr stand-in that records what is written; a terminal when `tty`. */
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

const overall = { count: 10, mrr: 0.5, mr: 3, hits1: 0.4, hits3: 0.6, hits10: 0.9 };
const metrics = { overall, tail: overall, head: overall, perRelation: [] };
const events: TrainingProgress[] = [
  { kind: 'batch', epoch: 1, batch: 1, batches: 2, loss: 0.5, examplesPerSecond: 100 },
  { kind: 'batch', epoch: 1, batch: 2, batches: 2, loss: 0.4, examplesPerSecond: 100 },
  { kind: 'epoch', epoch: 1, epochs: 2, loss: 0.45, seconds: 1.5, examplesPerSecond: 100 },
  { kind: 'validation', epoch: 1, metrics, bestMrr: 0.5, improved: true },
];

describe('terminal progress', () => {
  it('writes plain lines without a terminal: one per epoch and per validation', () => {
    const stream = fakeStream(false);
    const progress = trainingProgress(2, { stream, prefix: 'job: ' });
    for (const event of events) progress.report(event);
    progress.stop();
    expect(stream.text().split('\n')).toEqual([
      'job: epoch=1/2 loss=0.450000 seconds=1.50 examples_per_s=100',
      'job: validation epoch=1 mrr=0.5000 hits1=0.4000 hits10=0.9000 best_mrr=0.5000 (best)',
      '',
    ]);
  });

  it('draws a bar on a terminal and prints validations above it', () => {
    const stream = fakeStream(true);
    const progress = trainingProgress(2, { stream });
    for (const event of events) progress.report(event);
    progress.stop();
    const text = stream.text();
    expect(text).toMatch(/epoch 1\/2 \[=+-+\] batch 2\/2 loss 0\.40000 100 ex\/s/);
    expect(text).toContain('validation epoch=1 mrr=0.5000');
    expect(text).not.toContain('epoch=1/2');
  });

  it('keeps plain lines when asked, even on a terminal', () => {
    const stream = fakeStream(true);
    const progress = trainingProgress(2, { stream, plain: true });
    for (const event of events) progress.report(event);
    progress.stop();
    expect(stream.text()).toMatch(/^epoch=1\/2 loss=/);
  });

  it('logs ingest progress every 5 s without a terminal', () => {
    jest.useFakeTimers();
    try {
      const stream = fakeStream(false);
      const progress = ingestProgress(stream);
      const state = { phase: 'write' as const, lines: 10, triples: 8, seconds: 2 };
      progress.report({ ...state, fraction: 0.1 });
      jest.advanceTimersByTime(5000);
      progress.report({ ...state, fraction: 0.5 });
      progress.stop();
      expect(stream.text()).toBe(
        'ingest phase=write progress=50.0% lines=10 triples=8 rate=4/s eta=2s\n',
      );
    } finally {
      jest.useRealTimers();
    }
  });
});
