import os from 'node:os';
import type { Database } from '../../../src/graph';
import { ModelStore } from '../../../src/model';
import { createLogger } from '../../../src/server/logger';
import { ModelFollower } from '../../../src/server/model-follower';

/**
 * A Database whose every read transaction runs its queries with `run` (the follower reads only
 * the registry's active version), counting the reads.
 */
function fakeDb(run: () => Promise<unknown>): Database & { reads: number } {
  const db = {
    reads: 0,
    read: async (work: (tx: unknown) => Promise<unknown>) => {
      db.reads += 1;
      return work({ run });
    },
  };
  return db as unknown as Database & { reads: number };
}

/** A registry answer of one active version record. */
function activeRecord(id: string, dir: string) {
  const row = { get: (key: string) => (key === 'id' ? id : dir) };
  return async () => ({ records: [row] });
}

/** Log lines written while following, parsed. */
function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

/** Starts `follower`, lets it poll for `ms`, stops it: the unhandled rejections meanwhile. */
async function unhandledDuring(ms: number, follower: ModelFollower): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    await follower.start();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await follower.stop();
    // Rejections are reported after a turn of the microtask queue and a macrotask.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', record);
  }
  return unhandled;
}

describe('the model follower when a poll fails', () => {
  const store = new ModelStore(os.tmpdir());

  it('logs a registry read that throws and keeps following, no rejection unhandled', async () => {
    const { logger, lines } = captureLogger();
    const db = fakeDb(async () => {
      throw new Error('registry unreachable');
    });
    const follower = new ModelFollower(db, { store, scope: 'default', pollMs: 20 }, logger);
    expect(await unhandledDuring(200, follower)).toEqual([]);
    expect(db.reads).toBeGreaterThan(3); // it went on polling
    expect(lines.some((l) => /cannot read the active model version/.test(String(l.msg)))).toBe(
      true,
    );
    expect(follower.current()).toBeUndefined();
  });

  it('refuses a registry record it cannot even name a directory for, logs it, and keeps polling', async () => {
    // The record's directory is gone and its id is no version id: store.dir() throws outside
    // the load's own try, which used to reject the timer's poll (unhandled: the process ended).
    const { logger, lines } = captureLogger();
    // Nothing active at start; then the bad record, met on the timer's polls.
    const bad = activeRecord('../not a version', '/nonexistent/kgc-model');
    let runs = 0;
    const db = fakeDb(async () => (++runs === 1 ? { records: [] } : bad()));
    const follower = new ModelFollower(db, { store, scope: 'default', pollMs: 20 }, logger);
    expect(await unhandledDuring(200, follower)).toEqual([]);
    expect(db.reads).toBeGreaterThan(3);
    // Refused once, loudly, and not retried until the registry's active version changes.
    const refusals = lines.filter((l) =>
      /refused to load the active model version/.test(String(l.msg)),
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.level).toBe(50); // error
    expect(follower.current()).toBeUndefined();
  });
});
