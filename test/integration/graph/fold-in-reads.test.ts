import {
  Database,
  entityPages,
  entityNeighbourhoods,
  graphChangeStamp,
  TripleWriter,
  writeEntityLabels,
} from '../../../src/graph';
import { testDatabase, uniqueId } from '../../support/test-database';

describe("fold-in reads: a new entity's edges, the entity list, the change stamp", () => {
  const tag = uniqueId('fold');
  const id = (name: string) => `${name}_${tag}`;
  let db: Database;

  beforeAll(async () => {
    db = testDatabase();
    await new TripleWriter(db).writeEdges([
      [id('new'), id('likes'), id('a')],
      [id('b'), id('likes'), id('new')],
      [id('new'), id('knows'), id('b')],
      [id('hub'), id('likes'), id('a')],
      [id('hub'), id('likes'), id('b')],
      [id('hub'), id('likes'), id('c')],
    ]);
    await writeEntityLabels(db, [[id('new'), ['Person']]]);
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.close();
  });

  it("reads each entity's edges in both directions with its labels; an absent entity is undefined", async () => {
    const [hood, missing] = await entityNeighbourhoods(db, [id('new'), id('nobody')], 100);
    expect(missing).toBeUndefined();
    expect(hood?.labels).toEqual(['Person']);
    const edges = [...(hood?.edges ?? [])].sort((x, y) =>
      `${x.relation}${x.other}`.localeCompare(`${y.relation}${y.other}`),
    );
    expect(edges).toEqual([
      { relation: id('knows'), other: id('b'), outgoing: true },
      { relation: id('likes'), other: id('a'), outgoing: true },
      { relation: id('likes'), other: id('b'), outgoing: false },
    ]);
  });

  it("reads at most the cap of a hub's edges", async () => {
    const [hub] = await entityNeighbourhoods(db, [id('hub')], 2);
    expect(hub?.edges).toHaveLength(2);
  });

  it('lists every entity page by page, each once, with its degree', async () => {
    const seen = new Map<string, number>();
    for await (const page of entityPages(db, 2)) {
      expect(page.ids.length).toBeLessThanOrEqual(2);
      expect(page.degrees).toHaveLength(page.ids.length);
      page.ids.forEach((e, i) => {
        expect(seen.has(e)).toBe(false);
        if (e.endsWith(tag)) seen.set(e, page.degrees[i] as number);
      });
    }
    expect([...seen.keys()].sort()).toEqual(['a', 'b', 'c', 'hub', 'new'].map(id).sort());
    const [a] = await entityNeighbourhoods(db, [id('a')], 100);
    expect(seen.get(id('a'))).toBe(a?.edges.length);
  });

  it('changes the stamp when an edge or an entity is added, not otherwise', async () => {
    const before = await graphChangeStamp(db);
    expect(await graphChangeStamp(db)).toBe(before);
    await new TripleWriter(db).writeEdges([[id('new'), id('likes'), id('c')]]);
    const afterEdge = await graphChangeStamp(db);
    expect(afterEdge).not.toBe(before);
    await new TripleWriter(db).writeEdges([[id('new'), id('likes'), id('d')]]);
    expect(await graphChangeStamp(db)).not.toBe(afterEdge);
  });
});
