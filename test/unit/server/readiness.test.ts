import type { Database } from '../../../src/graph';
import type { ServingModel } from '../../../src/model';
import { createLogger } from '../../../src/server/logger';
import { ReadinessCheck } from '../../../src/server/readiness';
import { StartUpWork } from '../../../src/server/start-up-work';

/** A database that always answers (readiness checks only `unavailable` and `ping`). */
const upDb = { unavailable: false, ping: async () => undefined } as unknown as Database;
const model = { version: 'v1' } as unknown as ServingModel;

function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

/** A promise and the function that settles it. */
function gate() {
  let open: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('readiness waits for the start-up work that competes with serving', () => {
  afterEach(() => jest.useRealTimers());

  it('is not ready while any start-up work runs, and ready once all of it is done', async () => {
    const { logger, lines } = captureLogger();
    const work = new StartUpWork(60_000, logger);
    const reads = gate();
    const foldIn = gate();
    work.add('serving path', () => reads.promise);
    work.add('fold-in', () => foldIn.promise);
    const readiness = new ReadinessCheck(
      upDb,
      undefined,
      () => model,
      undefined,
      () => work.waitingFor(),
    );

    expect(await readiness.check()).toEqual({
      ready: false,
      reasons: ['warming up: serving path, fold-in'],
    });
    reads.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await readiness.check()).toEqual({
      ready: false,
      reasons: ['warming up: fold-in'],
    });
    foldIn.open();
    await work.settled();
    expect(await readiness.check()).toEqual({ ready: true, reasons: [] });
    expect(lines.filter((l) => l.msg === 'start-up work done').map((l) => l.work)).toEqual([
      'serving path',
      'fold-in',
    ]);
  });

  it('counts failed work as done (logged), so a failure never keeps the server unready', async () => {
    const { logger, lines } = captureLogger();
    const work = new StartUpWork(60_000, logger);
    const reads = gate();
    work.add('serving path', () => reads.promise);
    expect(work.waitingFor()).toEqual(['serving path']);
    reads.fail(new Error('Neo4j went away'));
    await work.settled();
    expect(work.waitingFor()).toEqual([]);
    expect(lines.find((l) => l.msg === 'start-up work failed (requests pay for it)')).toMatchObject(
      { work: 'serving path' },
    );
  });

  it('stops waiting after its bound, saying once in the log what still runs', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick'] });
    const { logger, lines } = captureLogger();
    const work = new StartUpWork(30_000, logger);
    const index = gate();
    work.add('approximate index', () => index.promise);
    const readiness = new ReadinessCheck(
      upDb,
      undefined,
      () => model,
      undefined,
      () => work.waitingFor(),
    );

    jest.setSystemTime(1_000_000 + 29_999);
    expect((await readiness.check()).ready).toBe(false);
    jest.setSystemTime(1_000_000 + 30_000);
    expect(await readiness.check()).toEqual({ ready: true, reasons: [] });
    expect(await readiness.check()).toEqual({ ready: true, reasons: [] });
    const overdue = lines.filter((l) => String(l.msg).startsWith('ready before the start-up work'));
    expect(overdue).toHaveLength(1);
    expect(overdue[0]).toMatchObject({ running: ['approximate index'], maxWaitMs: 30_000 });
    index.open();
    await work.settled();
  });

  it('still names the other reasons while warming up', async () => {
    const work = new StartUpWork(60_000, captureLogger().logger);
    const reads = gate();
    work.add('serving path', () => reads.promise);
    const readiness = new ReadinessCheck(
      upDb,
      undefined,
      () => undefined,
      undefined,
      () => work.waitingFor(),
    );
    expect((await readiness.check()).reasons).toEqual([
      'model: none loaded',
      'warming up: serving path',
    ]);
    reads.open();
    await work.settled();
  });
});

describe('StartUpWork.stop', () => {
  it("aborts the work's signal, so a stopping server does not wait out a warm-up", async () => {
    const work = new StartUpWork(60_000, captureLogger().logger);
    let rounds = 0;
    work.add('serving path', async (signal) => {
      while (!signal.aborted) {
        rounds += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    work.stop();
    await work.settled();
    expect(rounds).toBeGreaterThan(0);
    expect(work.waitingFor()).toEqual([]);
  });
});
