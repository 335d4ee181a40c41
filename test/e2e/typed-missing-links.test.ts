import fs from 'node:fs';
import path from 'node:path';
import { exportDenseGraph } from '../../src/export';
import { Database, writeEntityLabels } from '../../src/graph';
import { writeVersionTypes } from '../../src/jobs/version-types';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface Row {
  entity: { id: string };
  typeConsistent: boolean | null;
}

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction,
    $typed: Boolean, $excludeConnected: Boolean) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction,
      typed: $typed, excludeConnected: $excludeConnected) { entity { id } typeConsistent }
}`;
const BATCH = `query($queries: [MissingLinksInput!]!) {
  missingLinksBatch(queries: $queries) { entity { id } typeConsistent }
}`;

describe('missingLinks typed: candidates in the learned range / domain', () => {
  const tag = uniqueId('ty');
  let graph: ServedGraph;
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  let untypedServer: Awaited<ReturnType<typeof startServer>>;
  const ask = async (url: string, variables: Record<string, unknown>) => {
    const result = await gql<{ missingLinks: Row[] }>(url, MISSING, variables);
    expect(result.errors).toBeUndefined();
    return result.data?.missingLinks ?? [];
  };
  const isClass = (row: Row) => row.entity.id.startsWith('class');

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    // A copy of the model without types.json: an older version.
    const untypedDir = `${graph.modelDir}-untyped`;
    fs.cpSync(graph.modelDir, untypedDir, { recursive: true });
    // Classes and items labelled in Neo4j; the types come from the job's own step.
    const exported = await exportDenseGraph(db, { relations: [graph.isA, graph.similar] });
    await writeEntityLabels(
      db,
      exported.entities.map((id) => [
        id,
        [id.startsWith('class') ? `Class_${tag}` : `Item_${tag}`],
      ]),
    );
    expect(await writeVersionTypes(db, exported, graph.modelDir)).toMatch(/from 2 label/);
    server = await startServer(testServerConfig(), {
      migrationsDir: MIGRATIONS,
      modelDir: graph.modelDir,
    });
    untypedServer = await startServer(testServerConfig(), {
      migrationsDir: MIGRATIONS,
      modelDir: untypedDir,
    });
  });

  afterAll(async () => {
    await server?.stop();
    await untypedServer?.stop();
    if (graph) fs.rmSync(`${graph.modelDir}-untyped`, { recursive: true, force: true });
    await graph?.cleanUp(db);
    await db.close();
  });

  it('returns only the range by default, every entity with typed: false, each marked', async () => {
    const typed = await ask(server.url, { entity: graph.id('e5'), relation: graph.isA, k: 10 });
    // Four classes, one already e5's: three candidates are left in the range.
    expect(typed).toHaveLength(3);
    expect(typed.every(isClass)).toBe(true);
    expect(typed.every((r) => r.typeConsistent === true)).toBe(true);
    const all = await ask(server.url, {
      entity: graph.id('e5'),
      relation: graph.isA,
      k: 10,
      typed: false,
    });
    expect(all).toHaveLength(10);
    expect(all.filter((r) => !isClass(r)).length).toBeGreaterThan(0);
    for (const row of all) expect(row.typeConsistent).toBe(isClass(row));
  });

  it('uses the domain for HEAD queries and holds in the exact pass (excludeConnected)', async () => {
    const heads = await ask(server.url, {
      entity: graph.id('class1'),
      relation: graph.isA,
      k: 20,
      direction: 'HEAD',
    });
    expect(heads).toHaveLength(20);
    expect(heads.some(isClass)).toBe(false);
    const exact = await ask(server.url, {
      entity: graph.id('e6'),
      relation: graph.isA,
      k: 10,
      excludeConnected: true,
    });
    expect(exact.length).toBeGreaterThan(0);
    expect(exact.every(isClass)).toBe(true);
  });

  it('takes typed per query in missingLinksBatch', async () => {
    const result = await gql<{ missingLinksBatch: Row[][] }>(server.url, BATCH, {
      queries: [
        { entity: graph.id('e9'), relation: graph.isA, k: 10 },
        { entity: graph.id('e9'), relation: graph.isA, k: 10, typed: false },
      ],
    });
    expect(result.errors).toBeUndefined();
    const [typed, all] = result.data?.missingLinksBatch ?? [];
    expect(typed?.every(isClass)).toBe(true);
    expect(all).toHaveLength(10);
    expect(all?.some((r) => r.typeConsistent === false)).toBe(true);
  });

  it('filters nothing and says null where the version has no types.json', async () => {
    expect(fs.existsSync(path.join(`${graph.modelDir}-untyped`, 'types.json'))).toBe(false);
    const rows = await ask(untypedServer.url, {
      entity: graph.id('e5'),
      relation: graph.isA,
      k: 10,
    });
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => r.typeConsistent === null)).toBe(true);
  });
});
