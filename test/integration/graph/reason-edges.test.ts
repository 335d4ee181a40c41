import { Database, TripleWriter } from '../../../src/graph';
import {
  REASON_EDGES_QUERY,
  reasonEdgesPresent,
} from '../../../src/graph/predictions/reason-edges';
import { testDatabase, uniqueId } from '../../support/test-database';

interface PlanNode {
  operatorType: string;
  dbHits: number;
  children: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(flatten)];
}

describe('reasonEdgesPresent: the reasons confirmation read', () => {
  const tag = uniqueId('re');
  const id = (name: string) => `${name}_${tag}`;
  const HUB_EDGES = 3000;
  let db: Database;

  beforeAll(async () => {
    db = testDatabase();
    const triples: [string, string, string][] = [];
    for (let i = 0; i < HUB_EDGES; i++) {
      triples.push([id('hub'), id('links'), id(`leaf${i}`)]);
      triples.push([id(`leaf${i}`), id('back'), id('hub2')]);
    }
    triples.push([id('a'), id('links'), id('b')]);
    await new TripleWriter(db).writeEdges(triples);
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.close();
  });

  it('says which edges exist: type, direction and both ends must match', async () => {
    const edge = (h: string, r: string, t: string) => ({
      head: id(h),
      relation: id(r),
      tail: id(t),
    });
    expect(
      await reasonEdgesPresent(db, [
        edge('a', 'links', 'b'),
        edge('b', 'links', 'a'),
        edge('a', 'back', 'b'),
        edge('a', 'links', 'nobody'),
        edge('hub', 'links', 'leaf7'),
        edge('a', 'links', 'b'),
        { head: id('a'), relation: 'x`]->() DETACH DELETE (n) //', tail: id('b') },
      ]),
    ).toEqual([true, false, false, false, true, true, false]);
    expect(await reasonEdgesPresent(db, [])).toEqual([]);
  });

  it('seeks both ends and expands into them: a hub costs nothing next to its degree', async () => {
    const edges = [
      { head: id('hub'), relation: id('links'), tail: id('leaf7') },
      { head: id('leaf9'), relation: id('back'), tail: id('hub2') },
      { head: id('hub'), relation: id('back'), tail: id('leaf8') },
    ];
    const result = await db.readQuery(`PROFILE ${REASON_EDGES_QUERY}`, { edges });
    const operators = flatten(result.summary.profile as unknown as PlanNode);
    const names = operators.map((op) => op.operatorType.replace(/@.*/, ''));
    expect(names).toContain('Expand(Into)');
    expect(names.filter((name) => name === 'NodeUniqueIndexSeek')).toHaveLength(2);
    expect(names).not.toContain('Expand(All)');
    expect(names.some((name) => /Scan/.test(name))).toBe(false);
    const dbHits = operators.reduce((sum, op) => sum + op.dbHits, 0);
    // Two hubs of 3,000 edges each: a walk from either would cost thousands.
    expect(dbHits).toBeLessThan(100);
  });
});
