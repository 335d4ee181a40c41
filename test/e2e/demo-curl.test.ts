import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { demoCurlCommand, SAMPLE_QUERY, writeDemoKey } from '../../src/demo';
import { Database } from '../../src/graph';
import { createApiKey } from '../../src/server/api-keys';
import { startServer } from '../../src/server/start-server';
import { MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface Answer {
  data?: { missingLinks: { entity: { id: string }; rank: number }[] } | null;
  errors?: { extensions?: { code?: string } }[];
}

/** Runs a printed command as a user pasting it would: through a POSIX shell (not blocking the
 * event loop, which serves the request). */
async function paste(command: string): Promise<Answer> {
  const { stdout } = await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8' });
  return JSON.parse(stdout) as Answer;
}

describe("the demo's printed curl, pasted into a shell", () => {
  const tag = uniqueId('curl');
  const reader = createApiKey('demo-reader', 'reader');
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "kgc-demo curl's state-"));
  let db: Database;
  let graph: ServedGraph;
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    // As the demo serves: keys configured, so a request without one is refused.
    const config = testServerConfig({ KGC_API_KEYS: reader.entry, KGC_ANONYMOUS_READS: 'false' });
    server = await startServer(config, { migrationsDir: MIGRATIONS, modelDir: graph.modelDir });
  });

  afterAll(async () => {
    await server?.stop();
    await graph?.cleanUp(db);
    await db.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('answers the sample query with the key read from an owner-only file, never printed', async () => {
    const keyFile = writeDemoKey(stateDir, reader.key);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const body = {
      query: SAMPLE_QUERY,
      variables: { entity: graph.id('e5'), relation: graph.similar },
    };
    const command = demoCurlCommand(server.url, keyFile, body);
    expect(command).not.toContain(reader.key);

    const answer = await paste(command);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.missingLinks.length).toBeGreaterThan(0);
    expect(answer.data?.missingLinks[0]?.rank).toBe(1);

    // The same request without the key header (what the demo printed before) is refused.
    const bare = await paste(command.replace(/ -H "authorization: [^"]*"/, ''));
    expect(bare.data ?? null).toBeNull();
    expect(bare.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
