import { Database, streamEdgesByNode, TripleWriter } from '../../../src/graph';
import { exportDenseGraph } from '../../../src/export';
import { testDatabase, uniqueId } from '../../support/test-database';

/** What one streamEdgesByNode read handed over, decoded. */
interface Read {
  types: readonly string[];
  /** head entity id -> its out-edges as `type tailNode`. */
  out: Map<string, string[]>;
  /** node id -> entity id, for heads and for the nodes named afterwards. */
  names: Map<number, string>;
  /** The nodes the stream was asked to name after the edges. */
  asked: number[];
}

async function read(db: Database, relations: string[], extraUnnamed: number[] = []) {
  const got: Read = { types: [], out: new Map(), names: new Map(), asked: [] };
  const tails = new Set<number>();
  const count = await streamEdgesByNode(
    db,
    { relations },
    {
      onRelationTypes: (types) => (got.types = types),
      onHead(node, head, out) {
        got.names.set(node, head);
        const edges: string[] = [];
        for (const packed of out) {
          if (packed === null) continue;
          const type = packed % got.types.length;
          const tail = (packed - type) / got.types.length;
          tails.add(tail);
          edges.push(`${got.types[type]} ${tail}`);
        }
        got.out.set(head, edges.sort());
      },
      unnamedNodes() {
        got.asked = [...tails].filter((node) => !got.names.has(node)).concat(extraUnnamed);
        return got.asked;
      },
      onNames(nodes, ids) {
        nodes.forEach((node, i) => got.names.set(node, ids[i] as string));
      },
    },
  );
  return { got, count };
}

describe('streamEdgesByNode: the export read in node ids', () => {
  const tag = uniqueId('es');
  const id = (name: string) => `${name}_${tag}`;
  const [likes, knows, other, noId] = [id('likes'), id('knows'), id('other'), id('noid')];
  let db: Database;
  let nodeOf: Map<string, number>;

  beforeAll(async () => {
    db = testDatabase();
    await new TripleWriter(db).writeEdges([
      [id('a'), likes, id('b')],
      [id('a'), knows, id('b')],
      [id('a'), likes, id('leaf')],
      [id('b'), likes, id('a')],
      [id('c'), other, id('leaf2')],
    ]);
    const rows = await db.read((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag RETURN e.id AS id, id(e) AS node', {
        tag,
      }),
    );
    nodeOf = new Map(rows.records.map((r) => [r.get('id') as string, r.get('node') as number]));
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.write((tx) => tx.run('MATCH (e:Entity {mark: $tag}) DETACH DELETE e', { tag }));
    await db.close();
  });

  it('packs each edge as tail node and type index, and names only tails that were no head', async () => {
    const { got, count } = await read(db, [likes, knows]);
    const node = (name: string) => nodeOf.get(id(name)) as number;
    expect(count).toBe(4);
    expect(got.out.get(id('a'))).toEqual(
      [`${knows} ${node('b')}`, `${likes} ${node('b')}`, `${likes} ${node('leaf')}`].sort(),
    );
    expect(got.out.get(id('b'))).toEqual([`${likes} ${node('a')}`]);
    expect(got.out.has(id('c'))).toBe(false);
    expect(got.asked).toEqual([node('leaf')]);
    expect(got.names.get(node('leaf'))).toBe(id('leaf'));
  });

  it('leaves out a node that no longer exists when it names the tails', async () => {
    const created = await db.write((tx) =>
      tx.run('CREATE (e:Entity {id: $id}) RETURN id(e) AS node', { id: id('gone') }),
    );
    const gone = created.records[0]?.get('node') as number;
    await db.write((tx) => tx.run('MATCH (e:Entity {id: $id}) DELETE e', { id: id('gone') }));
    const { got } = await read(db, [other], [gone]);
    expect(got.asked).toEqual([nodeOf.get(id('leaf2')), gone]);
    expect(got.names.get(nodeOf.get(id('leaf2')) as number)).toBe(id('leaf2'));
    expect(got.names.has(gone)).toBe(false);
  });

  it('leaves out the edges of an Entity without an id (hand-written Cypher) at either end', async () => {
    await db.write((tx) =>
      tx.run(
        `MATCH (p:Entity {id: $p}), (q:Entity {id: $q})
         CREATE (p)-[:$($rel)]->(:Entity {mark: $tag}), (:Entity {mark: $tag})-[:$($rel)]->(q)`,
        { p: id('a'), q: id('b'), rel: noId, tag },
      ),
    );
    await new TripleWriter(db).writeEdges([[id('a'), noId, id('b')]]);
    const { got } = await read(db, [noId]);
    expect([...got.out.keys()]).toEqual([id('a')]);
    expect(got.out.get(id('a'))).toHaveLength(2);
    expect([...got.names.values()].sort()).toEqual([id('a'), id('b')].sort());
    const graph = await exportDenseGraph(db, { relations: [noId] });
    expect(graph.entities).toEqual([id('a'), id('b')].sort());
    expect(graph.heads.length).toBe(1);
  });
});
