import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { FoldInCache } from '../../../../src/model/fold-in/fold-in-cache';
import { GraphIndex } from '../../../../src/model/rules/graph-index';
import { foldInInput } from '../../../../src/model/fold-in/fold-in-edges';

const vocabulary = {
  entities: new Map([
    ['a', 0],
    ['b', 1],
  ]),
  relations: new Map([['r', 0]]),
  findEntity(id: string) {
    return this.entities.get(id);
  },
  findRelation(name: string) {
    return this.relations.get(name);
  },
};

const types = { roles: [1], labels: [] };

describe('fold-in edges: what an entity is fitted to', () => {
  it('keeps only edges of known relations to known entities, in base ids, with their roles', () => {
    const input = foldInInput(vocabulary, {
      labels: ['Person'],
      edges: [
        { relation: 'r', other: 'a', outgoing: true },
        { relation: 'r', other: 'b', outgoing: false },
        { relation: 'unknown', other: 'a', outgoing: true },
        { relation: 'r', other: 'new-too', outgoing: true },
      ],
    });
    expect(input?.edges).toEqual([
      { relation: 0, other: 0, outgoing: true },
      { relation: 0, other: 1, outgoing: false },
    ]);
    // Role 2r: a tail of r (the incoming edge); 2r + 1: a head of r.
    expect(input?.types).toEqual({ roles: [0, 1], labels: ['Person'] });
  });

  it("gives each edge its query's known answers from the version's graph", async () => {
    // Entities a 0, b 1, c 2; relation r 0: a r b, c r b, b r a.
    const graph = await GraphIndex.build(
      3,
      1,
      Int32Array.of(0, 2, 1),
      Int32Array.of(0, 0, 0),
      Int32Array.of(1, 1, 0),
      new EventLoopTurns(),
    );
    const input = foldInInput(
      vocabulary,
      {
        labels: [],
        edges: [
          // (new, r, b): b's heads by r are a and c; (b, r, new): b's tails by r, a.
          { relation: 'r', other: 'b', outgoing: true },
          { relation: 'r', other: 'b', outgoing: false },
          // (new, r, a): nothing points at a by r but b; (a, r, new): a has tail b.
          { relation: 'r', other: 'a', outgoing: true },
        ],
      },
      graph,
    );
    expect(input?.edges.map((e) => e.answers)).toEqual([2, 1, 1]);
    // The answers depend on the version, not the entity: the fingerprint ignores them.
    const without = foldInInput(vocabulary, {
      labels: [],
      edges: [
        { relation: 'r', other: 'b', outgoing: true },
        { relation: 'r', other: 'b', outgoing: false },
        { relation: 'r', other: 'a', outgoing: true },
      ],
    });
    expect(without?.edges.every((e) => e.answers === undefined)).toBe(true);
    expect(without?.fingerprint).toBe(input?.fingerprint);
  });

  it('finds nothing to fit for an entity without an edge to a known entity', () => {
    const hood = {
      labels: [],
      edges: [
        { relation: 'r', other: 'new-too', outgoing: true },
        { relation: 'unknown', other: 'a', outgoing: true },
      ],
    };
    expect(foldInInput(vocabulary, hood)).toBeUndefined();
    expect(foldInInput(vocabulary, { labels: [], edges: [] })).toBeUndefined();
  });

  it('gives one fingerprint per edge set whatever the order, another when an edge or label changes', () => {
    const e1 = { relation: 'r', other: 'a', outgoing: true };
    const e2 = { relation: 'r', other: 'b', outgoing: true };
    const print = (edges: (typeof e1)[], labels: string[] = []) =>
      foldInInput(vocabulary, { edges, labels })?.fingerprint;
    expect(print([e1, e2])).toBe(print([e2, e1]));
    expect(print([e1, e2])).not.toBe(print([e1]));
    expect(print([e1])).not.toBe(print([{ ...e1, outgoing: false }]));
    expect(print([e1])).not.toBe(print([e1], ['Person']));
  });
});

describe('the fold-in cache of one version', () => {
  it('asks for a fit when an entity is new or its edge set changed, not when it is the same', () => {
    const cache = new FoldInCache();
    expect(cache.isStale('x', 'f1')).toBe(true);
    cache.put('x', 'f1', Float32Array.of(1, 2), types, []);
    expect(cache.isStale('x', 'f1')).toBe(false);
    expect(cache.isStale('x', 'f2')).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('keeps a refreshed entity in its place and drops one that lost its usable edges', () => {
    const cache = new FoldInCache();
    cache.put('x', 'f1', Float32Array.of(1, 2), types, []);
    cache.put('y', 'f1', Float32Array.of(3, 4), types, []);
    cache.put('x', 'f2', Float32Array.of(5, 6), types, []);
    let rows = cache.rows();
    expect(rows.names).toEqual(['x', 'y']);
    expect([...rows.embeddings]).toEqual([5, 6, 3, 4]);
    expect(cache.drop('x')).toBe(true);
    expect(cache.drop('x')).toBe(false);
    rows = cache.rows();
    expect(rows.names).toEqual(['y']);
    expect([...rows.embeddings]).toEqual([3, 4]);
  });

  it('copies the row it is given (the engine may reuse its buffer)', () => {
    const cache = new FoldInCache();
    const row = Float32Array.of(1, 2);
    cache.put('x', 'f1', row, types, []);
    row[0] = 9;
    expect([...cache.rows().embeddings]).toEqual([1, 2]);
  });

  it('gives no rows when nothing is folded', () => {
    const rows = new FoldInCache().rows();
    expect(rows.names).toEqual([]);
    expect(rows.embeddings.length).toBe(0);
  });
});
