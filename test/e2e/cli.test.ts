import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../src/graph/local/free-port';
import { runCli } from '../support/cli';
import { testTarget } from '../support/test-database';

function externalEnv(): Record<string, string> {
  const target = testTarget();
  return { NEO4J_URI: target.uri, NEO4J_USER: target.user, NEO4J_PASSWORD: target.password };
}

describe('the kgc command', () => {
  it.each([[[]], [['neo4j']], [['neo4j', 'start']], [['migrate']], [['serve']], [['demo']]])(
    'prints help for %j',
    (args) => {
      const result = runCli([...args, '--help'], {});
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^Usage: kgc/);
    },
  );

  it('lists applied migrations of the server named by NEO4J_URI', () => {
    const result = runCli(['migrate', '--status', '--json'], externalEnv());
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const status = JSON.parse(result.stdout) as { file: string; state: string }[];
    expect(status.find((s) => s.file === 'V0001__entity_id_unique.cypher')?.state).toBe('applied');
  });

  it('reports an unreachable server as one DATABASE_UNAVAILABLE line, no stack trace', async () => {
    const port = await findFreePort();
    const result = runCli(['migrate'], {
      NEO4J_URI: `bolt://127.0.0.1:${port}`,
      NEO4J_PASSWORD: 'whatever1',
      KGC_DB_RETRY_SECONDS: '1',
      KGC_DB_CONNECT_TIMEOUT_MS: '1000',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error \[DATABASE_UNAVAILABLE\]: /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says how to start the local server when none runs', () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-state-'));
    const migrate = runCli(['migrate'], { KGC_STATE_DIR: stateDir });
    expect(migrate.status).toBe(1);
    expect(migrate.stderr).toMatch(/DATABASE_UNAVAILABLE.*npx kgc neo4j start/);

    const status = runCli(['neo4j', 'status'], { KGC_STATE_DIR: stateDir });
    expect(status.status).toBe(3);
    expect(status.stdout).toMatch(/Neo4j is not running/);
  });

  it('rejects a bad configuration value naming the variable', () => {
    const result = runCli(['neo4j', 'status'], { KGC_NEO4J_BOLT_PORT: 'seven' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error \[INVALID_CONFIG\]: Invalid KGC_NEO4J_BOLT_PORT="seven"/);
  });
});
