import { ConcurrencyGate } from '../../../src/resolvers/concurrency-gate';

/** A piece of work that finishes when the test says so. */
function pending(): { promise: Promise<string>; finish: (value: string) => void } {
  let finish!: (value: string) => void;
  const promise = new Promise<string>((resolve) => (finish = resolve));
  return { promise, finish };
}

describe('ConcurrencyGate', () => {
  it('runs at most its limit at once and the rest in arrival order', async () => {
    const gate = new ConcurrencyGate(2);
    const works = [pending(), pending(), pending(), pending()];
    const started: number[] = [];
    const results = works.map((work, i) =>
      gate.run(() => {
        started.push(i);
        return work.promise;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(gate.queued).toBe(2);
    works[1]!.finish('b');
    await expect(results[1]).resolves.toBe('b');
    expect(started).toEqual([0, 1, 2]);
    works[0]!.finish('a');
    works[2]!.finish('c');
    await Promise.all([results[0], results[2]]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(gate.queued).toBe(0);
    works[3]!.finish('d');
    await expect(results[3]).resolves.toBe('d');
  });

  it('gives the place back when the work fails', async () => {
    const gate = new ConcurrencyGate(1);
    await expect(gate.run(() => Promise.reject(new Error('read failed')))).rejects.toThrow(
      'read failed',
    );
    await expect(gate.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(gate.queued).toBe(0);
  });
});
