import type { ServingModel } from '../../../../src/model';
import { FoldInService } from '../../../../src/model/fold-in/fold-in-service';
import type { FoldInEdge } from '../../../../src/model/fold-in/fold-in-edges';
import type { FoldInSettings, Neighbourhood } from '../../../../src/model/fold-in/fold-in-source';

/** A model's vocabulary and a fold-in that records its calls (the engine's part is tested in Rust). */
class FakeScorer {
  readonly fits: FoldInEdge[][][] = [];
  constructor(
    readonly entities: string[],
    readonly relations: string[] = ['r'],
    readonly embeddings: Float32Array = new Float32Array(0),
  ) {}
  findEntity(id: string) {
    const i = this.entities.indexOf(id);
    return i < 0 ? undefined : i;
  }
  findRelation(name: string) {
    const i = this.relations.indexOf(name);
    return i < 0 ? undefined : i;
  }
  async foldInAsync(entities: FoldInEdge[][]) {
    this.fits.push(entities);
    // Row of entity i: [edge count, first other] so a test sees what it was fitted to.
    return Float32Array.from(entities.flatMap((edges) => [edges.length, edges[0]!.other]));
  }
  withEntities(names: string[], rows: Float32Array) {
    return new FakeScorer([...this.entities, ...names], this.relations, rows);
  }
  reverseRelation(r: number) {
    return r + this.relations.length;
  }
  /** The canary's questions all rank their answers first, at logit 0. */
  async filteredRanksAsync(queries: unknown[]) {
    return {
      ranks: new Float64Array(queries.length).fill(1),
      logits: new Float32Array(queries.length),
    };
  }
  /** A row's logit in every question: its edge count less 2 (one edge: below every answer). */
  async logitsAgainstAsync(queries: unknown[], rows: Float32Array) {
    const k = rows.length / 2;
    return Float32Array.from(
      { length: queries.length * k },
      (_, i) => (rows[2 * (i % k)] as number) - 2,
    );
  }
}

const settings: FoldInSettings = {
  enabled: true,
  steps: 5,
  candidates: 0,
  maxBatch: 2,
  maxEdges: 100,
  pollMs: 60_000,
  waitMs: 1000,
  maxHarm: 0.005,
  maxEntities: 100,
};

function model(version: string, entities = ['a', 'b', 'c'], canary?: Uint32Array) {
  const scorer = new FakeScorer(entities);
  const served = {
    scorer,
    source: version,
    version,
    calibration: null,
    ...(canary ? { canary } : {}),
  } as unknown as ServingModel;
  return { served, scorer };
}

function fixture(graph: Map<string, Neighbourhood>, first = model('v1').served) {
  let active: ServingModel = first;
  let stamp = 1;
  const reads: string[][] = [];
  const service = new FoldInService(
    () => active,
    {
      neighbourhoods: async (ids) => {
        reads.push([...ids]);
        return ids.map((id) => graph.get(id));
      },
      stamp: async () => String(stamp),
      entityPages: async function* () {
        const ids = ['a', 'b', 'c', ...graph.keys()];
        yield { ids, degrees: ids.map((id) => graph.get(id)?.edges.length ?? 1) };
      },
    },
    settings,
  );
  return {
    service,
    reads,
    swap: (next: ServingModel) => (active = next),
    touch: () => (stamp += 1),
  };
}

const edge = (other: string, outgoing = true) => ({ relation: 'r', other, outgoing });
const served = (service: FoldInService) => service.current()!.scorer as unknown as FakeScorer;

describe('FoldInService', () => {
  it('folds in on request and serves the version with the entity appended', async () => {
    const graph = new Map([['x', { labels: [], edges: [edge('a'), edge('b', false)] }]]);
    const { service } = fixture(graph);
    const answered = await service.ensure('x');
    expect(answered?.scorer.findEntity('x')).toBe(3);
    expect(answered?.version).toBe('v1');
    expect(answered?.folded?.ids.has('x')).toBe(true);
    expect(service.current()).toBe(answered);
    expect(service.foldedInCount()).toBe(1);
    expect([...served(service).embeddings]).toEqual([2, 0]);
  });

  it('answers undefined for an entity without an edge to a known entity, and folds nothing', async () => {
    const graph = new Map([['lonely', { labels: [], edges: [edge('other-new')] }]]);
    const { service } = fixture(graph);
    expect(await service.ensure('lonely')).toBeUndefined();
    expect(await service.ensure('not-in-graph')).toBeUndefined();
    expect(service.foldedInCount()).toBe(0);
  });

  it('batches what is pending into engine calls of at most maxBatch entities', async () => {
    const graph = new Map<string, Neighbourhood>(
      ['x', 'y', 'z'].map((id) => [id, { labels: [], edges: [edge('a')] }]),
    );
    const { service } = fixture(graph);
    const base = service.current()!.scorer as unknown as FakeScorer;
    await Promise.all(['x', 'y', 'z'].map((id) => service.ensure(id)));
    expect(base.fits.map((call) => call.length)).toEqual([1, 2]);
    expect(service.foldedInCount()).toBe(3);
  });

  it('fits again only when the edge set changed (scan after the graph changed)', async () => {
    const graph = new Map([['x', { labels: [], edges: [edge('a')] }]]);
    const { service, touch, reads } = fixture(graph);
    const base = service.current()!.scorer as unknown as FakeScorer;
    await service.poll();
    await service.idle();
    expect(base.fits).toHaveLength(1);
    expect(reads).toEqual([['x']]);
    // Same stamp: no scan. New stamp, same degree: not read again.
    await service.poll();
    touch();
    await service.poll();
    await service.idle();
    expect(reads).toHaveLength(1);
    // A write-back's notice reads it: same edges, not fitted.
    service.notify(['x']);
    await service.idle();
    expect(reads).toHaveLength(2);
    expect(base.fits).toHaveLength(1);
    graph.set('x', { labels: [], edges: [edge('a'), edge('c')] });
    touch();
    await service.poll();
    await service.idle();
    expect(base.fits).toHaveLength(2);
    expect([...served(service).embeddings]).toEqual([2, 0]);
    // Its edges to known entities gone: it is no longer served.
    graph.set('x', { labels: [], edges: [] });
    service.notify(['x']);
    await service.idle();
    expect(service.foldedInCount()).toBe(0);
    expect(service.current()!.scorer.findEntity('x')).toBeUndefined();
  });

  it('reads an entity that cannot be folded in once, until its degree moves', async () => {
    const graph = new Map([['other', { labels: [], edges: [edge('other-new')] }]]);
    const { service, touch, reads } = fixture(graph);
    await service.poll();
    await service.idle();
    touch();
    await service.poll();
    await service.idle();
    expect(reads).toEqual([['other']]);
    graph.set('other', { labels: [], edges: [edge('other-new'), edge('a')] });
    touch();
    await service.poll();
    await service.idle();
    expect(reads).toEqual([['other'], ['other']]);
    expect(service.foldedInCount()).toBe(1);
  });

  it('drops a folded entity deleted from the graph at the next scan', async () => {
    const graph = new Map([['x', { labels: [], edges: [edge('a')] }]]);
    const { service, touch } = fixture(graph);
    await service.poll();
    await service.idle();
    expect(service.foldedInCount()).toBe(1);
    graph.delete('x');
    touch();
    await service.poll();
    await service.idle();
    expect(service.foldedInCount()).toBe(0);
    expect(service.current()!.scorer.findEntity('x')).toBeUndefined();
  });

  it('keeps a request on the model it holds while the served one is swapped', async () => {
    const graph = new Map([
      ['x', { labels: [], edges: [edge('a')] }],
      ['y', { labels: [], edges: [edge('b')] }],
    ]);
    const { service } = fixture(graph);
    const before = await service.ensure('x');
    await service.ensure('y');
    expect(before?.scorer.findEntity('y')).toBeUndefined();
    expect(service.current()?.scorer.findEntity('y')).toBe(4);
  });

  it('starts empty on a new version; entities the new version knows are not folded', async () => {
    const graph = new Map([
      ['x', { labels: [], edges: [edge('a')] }],
      ['y', { labels: [], edges: [edge('a')] }],
    ]);
    const { service, swap } = fixture(graph);
    await service.ensure('x');
    await service.ensure('y');
    expect(service.foldedInCount()).toBe(2);
    const { served: next, scorer: nextScorer } = model('v2', ['a', 'b', 'c', 'x']);
    swap(next);
    expect(service.foldedInCount()).toBe(0);
    expect(service.current()).toBe(next);
    expect(await service.ensure('x')).toBe(next);
    expect(nextScorer.fits).toHaveLength(0);
    const withY = await service.ensure('y');
    expect(withY?.version).toBe('v2');
    expect(withY?.scorer.findEntity('y')).toBe(4);
    expect(service.foldedInCount()).toBe(1);
  });

  const v1 = model('v1').served;

  it('does nothing when off: requests get undefined and nothing is read', async () => {
    const graph = new Map([['x', { labels: [], edges: [edge('a')] }]]);
    const reads: string[][] = [];
    const service = new FoldInService(
      () => v1,
      {
        neighbourhoods: async (ids) => {
          reads.push([...ids]);
          return ids.map((id) => graph.get(id));
        },
        stamp: async () => '1',
        entityPages: async function* () {},
      },
      { ...settings, enabled: false },
    );
    expect(await service.ensure('x')).toBeUndefined();
    service.notify(['x']);
    await service.idle();
    expect(reads).toEqual([]);
  });

  it('gives up waiting after waitMs and answers undefined (the request then says why)', async () => {
    let release: () => void = () => undefined;
    const service = new FoldInService(
      () => v1,
      {
        neighbourhoods: (ids) =>
          new Promise((resolve) => {
            release = () => resolve(ids.map(() => ({ labels: [], edges: [edge('a')] })));
          }),
        stamp: async () => '1',
        entityPages: async function* () {},
      },
      settings,
    );
    const started = Date.now();
    expect(await service.ensure('x', 50)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
    release();
    await service.idle();
    expect(service.foldedInCount()).toBe(1);
  });

  it("holds back an entity whose row would lower the canary's MRR, and says so", async () => {
    const graph = new Map([
      ['x', { labels: [], edges: [edge('a')] }],
      ['y', { labels: [], edges: [edge('a'), edge('b'), edge('c')] }],
    ]);
    // Canary edges (a, r, b) and (b, r, c): four questions, each answered first at logit 0.
    const first = model('v1', undefined, Uint32Array.of(0, 0, 1, 1, 0, 2));
    const { service, touch } = fixture(graph, first.served);
    await service.poll();
    await service.idle();
    // x's logit (-1) stays below every answer; y's (1) would outrank all four: MRR 1 -> 0.5.
    const now = service.current()!;
    expect(now.scorer.findEntity('x')).toBe(3);
    expect(now.scorer.findEntity('y')).toBeUndefined();
    expect(now.foldInHeldBack?.has('y')).toBe(true);
    expect(service.foldedInCount()).toBe(1);
    expect(service.heldBackCount()).toBe(1);
    // Held back for this edge set: a request does not refit it.
    expect(await service.ensure('y')).toBeUndefined();
    expect(first.scorer.fits.flat()).toHaveLength(2);
    // Its edges change to one edge: fitted again, harmless now, served.
    graph.set('y', { labels: [], edges: [edge('c')] });
    touch();
    await service.poll();
    await service.idle();
    expect(service.current()!.scorer.findEntity('y')).toBe(4);
    expect(service.heldBackCount()).toBe(0);
  });

  it('serves every fit when the tolerance is 1 (the canary off)', async () => {
    const graph = new Map([['y', { labels: [], edges: [edge('a'), edge('b'), edge('c')] }]]);
    const first = model('v1', undefined, Uint32Array.of(0, 0, 1)).served;
    const active = first;
    const service = new FoldInService(
      () => active,
      {
        neighbourhoods: async (ids) => ids.map((id) => graph.get(id)),
        stamp: async () => '1',
        entityPages: async function* () {
          yield { ids: ['y'], degrees: [3] };
        },
      },
      { ...settings, maxHarm: 1 },
    );
    expect((await service.ensure('y'))?.scorer.findEntity('y')).toBe(3);
  });

  it('remembers an unfoldable entity until the graph changes: a second request reads nothing', async () => {
    const graph = new Map([['lonely', { labels: [], edges: [edge('other-new')] }]]);
    const { service, reads, touch } = fixture(graph);
    expect(await service.ensure('lonely')).toBeUndefined();
    expect(await service.ensure('lonely')).toBeUndefined();
    expect(reads).toEqual([['lonely']]);
    // The graph changed: it may fold now, and it does.
    graph.set('lonely', { labels: [], edges: [edge('a')] });
    touch();
    await service.poll();
    await service.idle();
    expect(service.current()!.scorer.findEntity('lonely')).toBe(3);
  });

  it('folds in no more than maxEntities per version; the rest wait and are counted', async () => {
    const graph = new Map<string, Neighbourhood>(
      ['x', 'y', 'z'].map((id) => [id, { labels: [], edges: [edge('a')] }]),
    );
    let active = model('v1').served;
    const service = new FoldInService(
      () => active,
      {
        neighbourhoods: async (ids) => ids.map((id) => graph.get(id)),
        stamp: async () => '1',
        entityPages: async function* () {
          yield { ids: ['x', 'y', 'z'], degrees: [1, 1, 1] };
        },
      },
      { ...settings, maxEntities: 2 },
    );
    await service.poll();
    await service.idle();
    expect(service.foldedInCount()).toBe(2);
    expect(service.overCapacityCount()).toBe(1);
    const [turnedAway] = ['x', 'y', 'z'].filter(
      (id) => service.current()!.scorer.findEntity(id) === undefined,
    );
    expect(await service.ensure(turnedAway!)).toBeUndefined();
    // A new version starts empty: nothing over capacity.
    active = model('v2').served;
    expect(service.overCapacityCount()).toBe(0);
  });
});
