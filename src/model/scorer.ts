import type { Direction } from '../direction';
import { ErrorCode, KgcError } from '../errors';
import { mapEngineError, nativeEngine, Native } from './native-engine';
import type { FoldInEdge } from './fold-in/fold-in-edges';

/** Memory a loaded model may spend on precomputed relation cores (FB15k-237 needs 38 MB). */
const WARM_UP_BUDGET_BYTES = 256 * 2 ** 20;

export interface ScoredEntity {
  /** Entity index in the model's vocabulary. */
  index: number;
  id: string;
  logit: number;
  /** sigmoid(logit). */
  probability: number;
}

/** One (entity, relation) query in the model's ids; `head` asks through the reverse relation. */
export interface ScoringQuery {
  entity: number;
  relation: number;
  direction?: Direction;
}

/** An edge whose tail is ranked: `(entity, relation, tail)` in the model's ids. */
export interface RankQuery extends ScoringQuery {
  tail: number;
}

export interface TopKOptions {
  /** Entity indices never returned (existing and rejected edges). */
  exclude?: Uint32Array | number[];
}

/**
 * The share of rows an approximate index may leave to the exact scan beside every search: a
 * quarter of the rows in f32 is as many bytes as every row in 8 bits.
 */
const MAX_SIDE_SCAN_SHARE = 0.25;

/** What `Scorer.buildApproxIndex` built. */
export interface ApproxIndexBuilt {
  /** Whether top-k now goes through the index (false: the side scan was too large). */
  used: boolean;
  /** Rows no search reaches through the graph, scored exactly beside every search. */
  sideScanned: number;
  /** Rows indexed. */
  entities: number;
}

/** An approximate index and how wide to search it. */
interface ApproxTopK {
  index: Native.ApproxIndex;
  searchWidth: number;
}

/**
 * Serving view of a trained model: 1-N scores of `(head, relation)` against every entity,
 * top k. `relation` is a base relation index; `direction: 'head'` asks for missing heads
 * through the reverse relation.
 */
export class Scorer {
  /** The trained entities' indices (shared by the scorers grown from this one). */
  private readonly entityIndex: Map<string, number>;
  /** Entities appended after training (`withEntities`): their indices. */
  private readonly appendedIndex: ReadonlyMap<string, number>;
  private readonly relationIndex: Map<string, number>;
  readonly entities: readonly string[];
  readonly relations: string[];

  /**
   * Filled once an approximate index is built (`buildApproxIndex`): async top-k then goes
   * through it. Shared with the scorers `withEntities` grows from this one (the index covers
   * the first rows, the appended ones are scored exactly beside it), so they use it too.
   */
  private approx: { current?: ApproxTopK } = {};

  /**
   * `grownFrom`: the scorer this model was grown from by `withEntities` and the names it
   * appended; its vocabulary and indices are reused, not read again across the binding (a
   * million names at scale).
   */
  private constructor(
    private readonly model: Native.NeptuneModel,
    grownFrom?: { scorer: Scorer; names: readonly string[] },
  ) {
    if (grownFrom) {
      const { scorer, names } = grownFrom;
      this.entities = scorer.entities.concat(names);
      this.relations = scorer.relations;
      this.entityIndex = scorer.entityIndex;
      this.relationIndex = scorer.relationIndex;
      const appended = new Map(scorer.appendedIndex);
      const first = scorer.entities.length;
      names.forEach((id, i) => appended.set(id, first + i));
      this.appendedIndex = appended;
      this.approx = scorer.approx;
      return;
    }
    this.entities = model.entities;
    this.relations = model.relations;
    this.entityIndex = new Map(this.entities.map((id, i) => [id, i]));
    this.appendedIndex = new Map();
    this.relationIndex = new Map(this.relations.map((name, i) => [name, i]));
  }

  /**
   * Loads a saved model; corrupt or mismatched files are refused with MODEL_INVALID. Every
   * relation's core is computed at load when they fit in `WARM_UP_BUDGET_BYTES`, so the first
   * query on a relation is as fast as the next.
   */
  static load(dir: string): Scorer {
    try {
      const model = nativeEngine().NeptuneModel.load(dir);
      model.warmUp(WARM_UP_BUDGET_BYTES);
      return new Scorer(model);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /** `load` off the JS thread: a serving process keeps answering while a new version loads. */
  static async loadAsync(dir: string): Promise<Scorer> {
    try {
      return new Scorer(await nativeEngine().loadModel(dir, WARM_UP_BUDGET_BYTES));
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /** The engine's model behind this scorer: a version's fitting steps (the combiner) ask it. */
  get engineModel(): Native.NeptuneModel {
    return this.model;
  }

  get epoch(): number {
    return this.model.epoch;
  }

  get validMrr(): number | null {
    return this.model.validMrr;
  }

  /** The entity's index, or undefined when the model has not seen it. */
  findEntity(id: string): number | undefined {
    return this.entityIndex.get(id) ?? this.appendedIndex.get(id);
  }

  entity(id: string): number {
    const index = this.findEntity(id);
    if (index === undefined) {
      throw new KgcError(
        ErrorCode.ENTITY_NOT_IN_MODEL,
        `Entity "${id}" is not in the serving model: it was added after the model was trained; the next retraining will include it.`,
      );
    }
    return index;
  }

  /** The relation's index, or undefined when the model has not seen it. */
  /** The model relation of the head question of base relation `relation`. */
  reverseRelation(relation: number): number {
    return this.model.reverseRelation(relation);
  }

  findRelation(name: string): number | undefined {
    return this.relationIndex.get(name);
  }

  relation(name: string): number {
    const index = this.relationIndex.get(name);
    if (index === undefined) {
      throw new KgcError(
        ErrorCode.UNKNOWN_RELATION,
        `Relation "${name}" is not in the serving model; the next retraining will include it if the graph has such edges.`,
      );
    }
    return index;
  }

  topK(
    entity: number,
    relation: number,
    k: number,
    options: TopKOptions & { direction?: Direction } = {},
  ): ScoredEntity[] {
    return (
      this.topKBatch([{ entity, relation, direction: options.direction }], k, [
        options.exclude,
      ])[0] ?? []
    );
  }

  /** The model's score of the edge `(head, relation, tail)`, as missingLinks ranks it. */
  score(head: number, relation: number, tail: number): { logit: number; probability: number } {
    try {
      const logit = this.model.scoreTriples(
        Uint32Array.of(head),
        Uint32Array.of(relation),
        Uint32Array.of(tail),
      )[0] as number;
      return { logit, probability: 1 / (1 + Math.exp(-logit)) };
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * Logits of many edges `(heads[i], relations[i], tails[i])` (base relation ids) in one engine
   * call. `direction: 'head'` scores each as missingLinks' head direction does:
   * `(tail, reverse(relation), head)`.
   */
  scoreTriples(
    heads: Uint32Array,
    relations: Uint32Array,
    tails: Uint32Array,
    direction: Direction = 'tail',
  ): Float32Array {
    if (heads.length !== relations.length || heads.length !== tails.length) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        'scoreTriples needs heads, relations and tails of the same length.',
      );
    }
    try {
      if (direction === 'tail') return this.model.scoreTriples(heads, relations, tails);
      const reversed = relations.map((r) => this.model.reverseRelation(r));
      return this.model.scoreTriples(tails, reversed, heads);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * The entity embedding rows of `indices`, one Float32Array each (views of one buffer): the
   * space where serving finds entities like a query's entity.
   */
  entityVectors(indices: readonly number[]): Float32Array[] {
    if (indices.length === 0) return [];
    try {
      const flat = this.model.entityVectors(Uint32Array.from(indices));
      const d = flat.length / indices.length;
      return indices.map((_, i) => flat.subarray(i * d, (i + 1) * d));
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * Embeddings fitted for new entities against this model, frozen (issue 41): `entities[i]` are
   * entity i's edges to entities this model knows. `entities.length x d_e` floats, fitted on the
   * engine's worker threads. `signal` stops it (TRAINING_ABORTED).
   */
  async foldInAsync(
    entities: FoldInEdge[][],
    options: {
      steps?: number;
      lr?: number;
      seed?: number;
      candidates?: number;
      /** The tail side's negatives: the version's known queries (negative-pool.ts). */
      negatives?: Native.FoldInNegatives;
    },
    signal?: AbortSignal,
  ): Promise<Float32Array> {
    try {
      return await this.model.foldInAsync(entities, options, signal);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * This model with `names` appended as entities n.. (rows of `embeddings`), as a new scorer:
   * the trained tensors, the vocabulary and its index are shared, not copied.
   */
  withEntities(names: string[], embeddings: Float32Array): Scorer {
    try {
      return new Scorer(this.model.withEntities(names, embeddings), { scorer: this, names });
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /** Several queries in one engine call (cheaper per query than one by one). */
  topKBatch(
    queries: ScoringQuery[],
    k: number,
    excludes: (Uint32Array | number[] | undefined)[] = [],
  ): ScoredEntity[][] {
    try {
      const { heads, relations, lists } = this.engineArguments(queries, excludes);
      return this.rows(queries.length, this.model.topKBatch(heads, relations, k, lists));
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * `topKBatch` on the engine's worker threads (libuv's pool): the event loop stays free for
   * other requests and health checks while a large batch scores.
   */
  async topKBatchAsync(
    queries: ScoringQuery[],
    k: number,
    excludes: (Uint32Array | number[] | undefined)[] = [],
  ): Promise<ScoredEntity[][]> {
    try {
      const { heads, relations, lists } = this.engineArguments(queries, excludes);
      const approx = this.approx.current;
      const top = approx
        ? await this.model.topKApproxAsync(
            approx.index,
            heads,
            relations,
            k,
            approx.searchWidth,
            lists,
          )
        : await this.model.topKBatchAsync(heads, relations, k, lists);
      return this.rows(queries.length, top);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /** Whether async top-k goes through an approximate index. */
  get approximate(): boolean {
    return this.approx.current !== undefined;
  }

  /**
   * Builds an HNSW index over the entity rows on the engine's worker threads, then answers
   * `topKBatchAsync` through it, searching `searchWidth` wide (candidates re-scored exactly,
   * excluded entities never returned). `onProgress(rows inserted, rows)` is called every
   * `progressMs` while it builds; `signal` stops the build (TRAINING_ABORTED) and the scorer
   * stays exact. An index whose graph leaves more than `maxSideScanShare` of the rows (default
   * a quarter) to the exact scan beside every search is not used: reading those rows in f32
   * costs as much as the exact 8-bit scan of every row.
   */
  async buildApproxIndex(options: {
    connections: number;
    buildWidth: number;
    searchWidth: number;
    maxSideScanShare?: number;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    progressMs?: number;
  }): Promise<ApproxIndexBuilt> {
    if (options.signal?.aborted) {
      throw new KgcError(ErrorCode.TRAINING_ABORTED, 'the index build was aborted');
    }
    const progress = new (nativeEngine().IndexBuildProgress)();
    const { onProgress } = options;
    const timer = onProgress
      ? setInterval(() => onProgress(progress.done, progress.total), options.progressMs ?? 15_000)
      : undefined;
    timer?.unref();
    try {
      const index = await this.model.buildApproxIndexAsync(
        options.connections,
        options.buildWidth,
        progress,
        options.signal,
      );
      const { sideScanned, entities } = index;
      const used = sideScanned <= (options.maxSideScanShare ?? MAX_SIDE_SCAN_SHARE) * entities;
      if (used) this.approx.current = { index, searchWidth: options.searchWidth };
      return { used, sideScanned, entities };
    } catch (error) {
      throw mapEngineError(error);
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * The filtered rank of each query's tail among all entities, as the evaluation ranks it
   * (ties count half; an entity in `excludes[i]` is removed, the tail itself never is), and the
   * tail's logit, on the engine's worker threads. `direction: 'head'` ranks `tail` as a head.
   * With `ranked`, each tail ranks as if it scored `ranked[i]` where that is above its logit.
   */
  async filteredRanksAsync(
    queries: RankQuery[],
    excludes: (Uint32Array | number[] | undefined)[] = [],
    ranked?: Float32Array,
  ): Promise<{ ranks: Float64Array; logits: Float32Array }> {
    try {
      const { heads, relations, lists } = this.engineArguments(queries, excludes);
      const tails = Uint32Array.from(queries, (q) => q.tail);
      return await this.model.filteredRanksAsync(heads, relations, tails, lists, ranked);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * The query's logit of each of `candidates` (entity indices), as `scoreTriples` gives each
   * edge in the query's direction, the query scored once, on the engine's worker threads.
   */
  async logitsOfAsync(
    query: ScoringQuery,
    candidates: readonly number[] | Uint32Array,
  ): Promise<Float32Array> {
    try {
      const { heads, relations } = this.engineArguments([query], []);
      return await this.model.logitsOfAsync(
        heads[0] as number,
        relations[0] as number,
        candidates instanceof Uint32Array ? candidates : Uint32Array.from(candidates),
      );
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * Each query's logit against each of `rows` (entity rows outside this model, as `foldInAsync`
   * gives them): `queries.length x rows`, row-major, on the engine's worker threads.
   */
  async logitsAgainstAsync(queries: ScoringQuery[], rows: Float32Array): Promise<Float32Array> {
    try {
      const { heads, relations } = this.engineArguments(queries, []);
      return await this.model.logitsAgainstAsync(heads, relations, rows);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /**
   * The best `n` missing edges of `relation` over the whole graph in one direction, on the
   * engine's worker threads: `queries` are the known ends (heads for 'tail'), `candidates` the
   * suggested ends (ascending; undefined: every entity), `exclude` the job's edges never
   * suggested (`suggestExclusions`). Best first. `signal` stops it (TRAINING_ABORTED).
   */
  async suggestAsync(
    relation: number,
    direction: Direction,
    n: number,
    scope: {
      queries?: Uint32Array;
      candidates?: Uint32Array;
      exclude: Native.SuggestExclusions;
    },
    signal?: AbortSignal,
  ): Promise<Native.Suggestions> {
    const stopped = () =>
      new KgcError(ErrorCode.TRAINING_ABORTED, 'Suggestions were stopped before they finished.');
    // An abort before the call, or one napi answers itself (AbortError), is still a stop.
    if (signal?.aborted) throw stopped();
    try {
      return await this.model.suggestAsync(
        relation,
        direction === 'head',
        n,
        scope.queries ?? null,
        scope.candidates ?? null,
        scope.exclude,
        signal ?? null,
      );
    } catch (error) {
      if (signal?.aborted) throw stopped();
      throw mapEngineError(error);
    }
  }

  /**
   * A job's edges never suggested (`heads[i]`-`relations[i]`->`tails[i]`, base relation ids),
   * held by the engine for every `suggestAsync` of the job: passed once, 8 bytes an edge.
   */
  suggestExclusions(
    heads: Uint32Array,
    relations: Uint32Array,
    tails: Uint32Array,
  ): Native.SuggestExclusions {
    try {
      return this.model.suggestExclusions(heads, relations, tails);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  private engineArguments(
    queries: ScoringQuery[],
    excludes: (Uint32Array | number[] | undefined)[],
  ): { heads: Uint32Array; relations: Uint32Array; lists: Uint32Array[] | undefined } {
    const heads = Uint32Array.from(queries, (q) => q.entity);
    const relations = Uint32Array.from(queries, (q) =>
      q.direction === 'head' ? this.model.reverseRelation(q.relation) : q.relation,
    );
    const lists = excludes.length
      ? queries.map((_, i) => {
          const list = excludes[i];
          return list instanceof Uint32Array ? list : Uint32Array.from(list ?? []);
        })
      : undefined;
    return { heads, relations, lists };
  }

  private rows(count: number, top: Native.TopK): ScoredEntity[][] {
    const result: ScoredEntity[][] = new Array(count);
    for (let q = 0; q < count; q++) {
      const end = top.offsets[q + 1] as number;
      const rows: ScoredEntity[] = [];
      for (let i = top.offsets[q] as number; i < end; i++) {
        const index = top.entities[i] as number;
        rows.push({
          index,
          id: this.entities[index] as string,
          logit: top.logits[i] as number,
          probability: top.probabilities[i] as number,
        });
      }
      result[q] = rows;
    }
    return result;
  }
}
