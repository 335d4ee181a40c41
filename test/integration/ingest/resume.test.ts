import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../../src/graph';
import { REPO_ROOT } from '../../../src/repo-root';
import { testDatabase, testTarget, uniqueId } from '../../support/test-database';
import {
  awkwardRelations,
  exportedTriples,
  generateTriples,
  keys,
  removeEntities,
  tempDir,
  writeTsv,
} from './ingest-fixtures';

/** The real CLI, run from source, against the test server. */
function cliArgs(file: string): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const target = testTarget();
  return {
    command: path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    args: [
      path.join(REPO_ROOT, 'src', 'cli', 'main.ts'),
      'ingest',
      file,
      '--batch-size',
      '500',
      '--json',
    ],
    env: {
      ...process.env,
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
    },
  };
}

async function countEdges(db: Database, relations: string[]): Promise<number> {
  const result = await db.read((tx) =>
    tx.run('MATCH (:Entity)-[r]->(:Entity) WHERE type(r) IN $relations RETURN count(r) AS n', {
      relations,
    }),
  );
  return result.records[0]?.get('n') as number;
}

describe('killed ingest', () => {
  let db: Database;
  const dir = tempDir();
  const prefix = uniqueId('resume');
  beforeAll(() => (db = testDatabase()));
  afterAll(async () => {
    await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('resumes to the same graph as a clean load', async () => {
    const triples = generateTriples(prefix, 30_000, 3000);
    const file = writeTsv(path.join(dir, 'big.tsv'), triples);
    const relations = awkwardRelations(prefix);
    const { command, args, env } = cliArgs(file);

    const child = spawn(command, args, { env, stdio: 'ignore', detached: true });
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if ((await countEdges(db, relations)) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The whole process group: tsx runs the CLI in a child node process.
    process.kill(-(child.pid as number), 'SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const partial = await countEdges(db, relations);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(triples.length);

    const rerun = spawnSync(command, args, { env, encoding: 'utf8' });
    expect(rerun.status).toBe(0);
    const summary = JSON.parse(rerun.stdout.trim().split('\n').pop() as string) as {
      written: number;
      alreadyPresent: number;
    };
    expect(summary.written + summary.alreadyPresent).toBe(triples.length);
    expect(summary.alreadyPresent).toBeGreaterThanOrEqual(partial);
    expect(await countEdges(db, relations)).toBe(triples.length);
    expect(await exportedTriples(db, relations)).toEqual(keys(triples));
  }, 240_000);

  it('the CLI reports bad input as one line and a non-zero exit', () => {
    const file = path.join(dir, 'bad.tsv');
    fs.writeFileSync(file, 'a\tb\n');
    const { command, args, env } = cliArgs(file);
    const result = spawnSync(command, args, { env, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'error [INGEST_INVALID_INPUT]: bad.tsv:1: expected 3 tab-separated columns, found 2. ' +
        'Nothing was written: fix the file or rerun with --skip-invalid.',
    );
  }, 60_000);
});
