import { Database, TripleWriter } from '../../../src/graph';
import { testDatabase, uniqueId } from '../../support/test-database';

describe('TripleWriter', () => {
  const tag = uniqueId('tw');
  const id = (name: string) => `${name}_${tag}`;
  let db: Database;

  beforeAll(() => {
    db = testDatabase();
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.close();
  });

  it('counts an edge whose endpoint vanished as failed, never as already present', async () => {
    const writer = new TripleWriter(db);
    const rel = id('likes');
    expect(await writer.writeEdges([[id('a'), rel, id('b')]])).toMatchObject({
      created: 1,
      failed: 0,
    });
    // Someone deletes b while this writer still believes it exists.
    await db.write((tx) => tx.run('MATCH (e:Entity {id: $id}) DETACH DELETE e', { id: id('b') }));
    const result = await writer.writeEdges([
      [id('a'), rel, id('b')],
      [id('a'), rel, id('c')],
    ]);
    expect(result).toEqual({ created: 1, present: 0, confirmed: 0, failed: 1, duplicates: 0 });
    // The next batch MERGEs the entity again, so a re-run converges.
    expect(await writer.writeEdges([[id('a'), rel, id('b')]])).toMatchObject({
      created: 1,
      failed: 0,
    });
    expect(await writer.writeEdges([[id('a'), rel, id('b')]])).toMatchObject({
      created: 0,
      present: 1,
      failed: 0,
    });
  });
});
