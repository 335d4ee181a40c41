import { Database, TripleWriter } from '../../../src/graph';
import { exportDenseGraph } from '../../../src/export';
import { acquireLease, getLease, listVersions, releaseLease } from '../../../src/graph/registry';
import { testTarget, uniqueId } from '../../support/test-database';

/**
 * `neo4j://` (the routing scheme of a cluster or Aura) against the test server: the driver asks
 * the server for its routing table and sends reads and writes where it says. A standalone server
 * names itself for every role, which is as far as one machine can test routing.
 */
describe('a neo4j:// (routing) connection', () => {
  const tag = uniqueId('route');
  const id = (name: string) => `${name}_${tag}`;
  let db: Database;

  beforeAll(() => {
    const target = testTarget();
    db = new Database(
      { ...target, uri: target.uri.replace(/^bolt:/, 'neo4j:') },
      { maxRetrySeconds: 10, connectTimeoutMs: 5000 },
    );
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.write((tx) =>
      tx.run('MATCH (l:JobLease {scope: $scope}) DELETE l', { scope: id('scope') }),
    );
    await db.close();
  });

  it('writes, reads, exports and reads the registry through the routing table', async () => {
    expect(db.target.uri).toMatch(/^neo4j:\/\//);
    await new TripleWriter(db).writeEdges([
      [id('a'), id('likes'), id('b')],
      [id('b'), id('likes'), id('c')],
    ]);
    const graph = await exportDenseGraph(db, { relations: [id('likes')] });
    expect(graph.entities).toEqual([id('a'), id('b'), id('c')]);
    expect([...graph.heads, ...graph.tails]).toEqual([0, 1, 1, 2]);
    // The registry: a lease taken (write), seen (read) and given back in a scope of its own.
    const scope = id('scope');
    expect(await listVersions(db, scope)).toEqual([]);
    await acquireLease(db, { holder: id('worker'), ttlSeconds: 60 }, scope);
    expect((await getLease(db, scope)).holder).toBe(id('worker'));
    await releaseLease(db, id('worker'), scope);
    expect((await getLease(db, scope)).holder).toBeNull();
  });
});
