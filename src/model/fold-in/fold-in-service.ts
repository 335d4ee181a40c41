import type { ServingModel } from '../serving-model';
import { withFoldedEntities } from '../serving-model';
import { FoldInCache } from './fold-in-cache';
import { foldInInput } from './fold-in-edges';
import type { FoldInEdge, FoldInInput } from './fold-in-edges';
import type { FoldInSettings, FoldInSource } from './fold-in-source';
import { FoldInQueue } from './fold-in-queue';
import { FoldInCanary } from './fold-in-canary';
import type { Candidate, CanaryImpact } from './fold-in-canary';
import { canaryEdges } from './canary-edges';
import { negativePool } from './negative-pool';
import type { NegativePool } from './negative-pool';

/** Where fold-in reports what went wrong (pino's shape; the server hands its logger in). */
interface FoldInLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** One version's folded entities and the model that serves them. */
interface VersionState {
  base: ServingModel;
  cache: FoldInCache;
  served: ServingModel;
  /** The graph stamp this version last scanned at (undefined: never). */
  scanned?: string;
  /**
   * Degree of each entity the version does not know, as the last scan saw it: a scan queues
   * only entities that are new or whose degree moved, so entities that cannot be folded in (no
   * edge to a known one: another source's subgraph) are not read again on every graph change.
   */
  degrees: Map<string, number>;
  /** The version's known queries sampled as fold-in's negatives (made on the first fold-in). */
  negatives?: Promise<NegativePool | undefined>;
  /** The version's held-out edges that fold-ins must not harm (made on the first fold-in). */
  canary?: Promise<FoldInCanary | undefined>;
  /** Entities held back by the canary, with the edge set they were held back for. */
  heldBack: Map<string, string>;
  /**
   * Entities a read found unfoldable (absent, or no edge to a known entity) since the graph's
   * last change: a request for one answers at once instead of queueing a read again.
   */
  unfoldable: Set<string>;
  /** New entities past KGC_FOLD_IN_MAX_ENTITIES: they wait for the next retraining. */
  overCapacity: Set<string>;
}

/** Entities queued for waiting requests at most (a flood of new ids cannot grow the queue). */
const MAX_URGENT = 4096;

/** Same seed for every fit: one edge set gives one embedding. */
const FOLD_IN_SEED = 41;

/**
 * New entities answered without retraining (issue 41): entities of the graph that the active
 * version does not know, with an edge to one it knows, get an embedding fitted against the
 * frozen model (the engine's fold-in, on its worker threads), several per engine call. The
 * served model is the version's with those rows appended, swapped in with one assignment, so a
 * request holding the previous one stays consistent. Folded after a write-back or an ingest
 * (the graph's stamp changed), or when a request asks for one; cached per (version, entity)
 * with its edge set's fingerprint and fitted again when that changes. A new version starts
 * with an empty cache.
 */
export class FoldInService {
  private state: VersionState | undefined;
  private readonly queue = new FoldInQueue();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly base: () => ServingModel | undefined,
    private readonly source: FoldInSource,
    private readonly settings: FoldInSettings,
    private readonly log?: FoldInLog,
  ) {}

  /** The model to answer with now: the active version plus its folded entities. */
  current(): ServingModel | undefined {
    const base = this.base();
    if (!base) return undefined;
    return this.stateFor(base).served;
  }

  /** Entities folded into the active version now (the staleness gauge reads it). */
  foldedInCount(): number {
    const base = this.base();
    return base && this.state?.base === base ? this.state.cache.size : 0;
  }

  /** New entities the active version does not fold in: its cache is full (KGC_FOLD_IN_MAX_ENTITIES). */
  overCapacityCount(): number {
    const base = this.base();
    return base && this.state?.base === base ? this.state.overCapacity.size : 0;
  }

  /** Entities whose fold-in the canary held back for the active version. */
  heldBackCount(): number {
    const base = this.base();
    return base && this.state?.base === base ? this.state.heldBack.size : 0;
  }

  /** Entities whose edges changed (a write-back): fold them in or refresh them, in the background. */
  notify(ids: readonly string[]): void {
    if (!this.settings.enabled) return;
    const base = this.base();
    const fresh = ids.filter((id) => base && base.scorer.findEntity(id) === undefined);
    if (fresh.length > 0) this.enqueue(fresh, false);
  }

  /**
   * A model that knows `id` once its fold-in is done, waiting at most `waitMs`; undefined when
   * the entity cannot be folded in (no edge to a known entity), fold-in is off, or time ran out.
   */
  async ensure(id: string, waitMs = this.settings.waitMs): Promise<ServingModel | undefined> {
    const now = this.current();
    if (!now || now.scorer.findEntity(id) !== undefined) return now;
    if (!this.settings.enabled) return undefined;
    // Known not to fold (until the graph or its edges change): no read, no queue.
    const state = this.state;
    if (state?.unfoldable.has(id) || state?.heldBack.has(id) || state?.overCapacity.has(id)) {
      return undefined;
    }
    // Requests' fold-ins queued at once are bounded: past it a request answers without one.
    if (this.queue.urgentSize >= MAX_URGENT) return undefined;
    const done = this.queue.waitFor(id, waitMs);
    this.enqueue([id], true);
    const model = await done;
    return model?.scorer.findEntity(id) !== undefined ? model : undefined;
  }

  /** Follows the graph: new entities ingested by another process are folded in within pollMs. */
  start(): void {
    if (!this.settings.enabled) return;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    this.queue.cancelAll();
    await this.running;
  }

  /** One look at the graph's stamp, and a scan when it moved; exposed for tests. */
  poll(): Promise<void> {
    this.polling ??= this.scan()
      .catch((error: unknown) =>
        this.log?.warn({ err: error }, 'fold-in: scanning the graph failed'),
      )
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  /**
   * One scan of the graph now and every fold-in it queues, finished: a serving process waits
   * for this before it says ready, so the fits of the entities the version lacks (the engine's
   * threads, a swapped model) do not land on its first requests.
   */
  async catchUp(): Promise<void> {
    if (!this.settings.enabled || this.stopped) return;
    await this.poll();
    await this.idle();
  }

  /** Waits until nothing is queued or being folded (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule());
    }, this.settings.pollMs);
    this.timer.unref();
  }

  private stateFor(base: ServingModel): VersionState {
    if (this.state?.base !== base) {
      // A new version (or a rollback): its own entities need no fold-in, the rest start over.
      this.state = {
        base,
        cache: new FoldInCache(),
        served: base,
        degrees: new Map(),
        heldBack: new Map(),
        unfoldable: new Set(),
        overCapacity: new Set(),
      };
    }
    return this.state;
  }

  /**
   * Entities the version does not know that are new since the last scan or whose degree moved,
   * looked for when the graph changed since the last scan.
   */
  private async scan(): Promise<void> {
    const base = this.base();
    if (!base) return;
    const state = this.stateFor(base);
    const stamp = await this.source.stamp();
    if (stamp === state.scanned) return;
    // The graph changed: what was unfoldable or over capacity may fold now.
    state.unfoldable.clear();
    state.overCapacity.clear();
    const changed: string[] = [];
    const present = new Map<string, number>();
    for await (const { ids, degrees } of this.source.entityPages()) {
      ids.forEach((id, i) => {
        if (base.scorer.findEntity(id) !== undefined) return;
        const degree = degrees[i] as number;
        present.set(id, degree);
        if (state.degrees.get(id) !== degree) changed.push(id);
      });
    }
    // Entities deleted since the last scan: their folded rows go (a read finds no entity).
    for (const id of state.degrees.keys())
      if (!present.has(id) && state.cache.has(id)) changed.push(id);
    state.degrees = present;
    state.scanned = stamp;
    if (changed.length > 0) this.enqueue(changed, false);
  }

  private enqueue(ids: readonly string[], urgent: boolean): void {
    this.queue.add(ids, urgent);
    this.kick();
  }

  private kick(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      // Queued after the loop's last look, before it ended: start again.
      if (this.queue.size > 0 && !this.stopped) this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch = this.queue.take(this.settings.maxBatch);
      if (batch.length === 0) return;
      try {
        await this.foldBatch(batch);
      } catch (error) {
        this.log?.warn({ err: error, entities: batch.length }, 'fold-in failed for a batch');
        // The next scan tries them again.
        for (const id of batch) this.state?.degrees.delete(id);
        this.queue.settle(batch, this.current());
      }
    }
  }

  /**
   * The version's known queries as fold-in's negatives (weighted as training weighs a row's
   * column, so a folded row is pushed down where it is no answer); without a graph (graph.bin),
   * the engine's uniform sample.
   */
  private negativesOf(state: VersionState): Promise<NegativePool | undefined> {
    const { graph, scorer } = state.base;
    state.negatives ??= graph
      ? negativePool(graph, (r) => scorer.reverseRelation(r)).catch((error: unknown) => {
          this.log?.warn({ err: error }, 'fold-in: sampling the known queries failed');
          return undefined;
        })
      : Promise.resolve(undefined);
    return state.negatives;
  }

  /**
   * The candidates (by index) whose rows keep the version's canary MRR within maxHarm of its
   * own, the rows already served counted first, with each candidate's canary impact; all of
   * them without a canary.
   */
  private async admit(
    state: VersionState,
    fit: { id: string }[],
    candidates: Candidate[],
  ): Promise<{ admitted: Set<number>; impacts: (CanaryImpact | undefined)[] }> {
    const everyone = new Set(candidates.map((_, i) => i));
    const canary = await this.canaryOf(state);
    if (!canary || this.settings.maxHarm >= 1) return { admitted: everyone, impacts: [] };
    const served = state.cache.impacts(new Set(fit.map((f) => f.id)));
    const verdict = await canary.admit(served, candidates, this.settings.maxHarm);
    const admitted = new Set(verdict.admitted);
    if (admitted.size < candidates.length) {
      this.log?.warn(
        {
          version: state.base.version,
          heldBack: fit
            .filter((_, i) => !admitted.has(i))
            .map((f) => f.id)
            .slice(0, 20),
          count: candidates.length - admitted.size,
          canaryMrr: verdict.before,
          withFolded: verdict.after,
          harmStandardError: verdict.standardError,
          maxHarm: this.settings.maxHarm,
        },
        "fold-in held back: these entities would lower the version's answers on its held-out edges by more than KGC_FOLD_IN_MAX_HARM",
      );
    }
    return { admitted, impacts: verdict.impacts };
  }

  /** The version's canary: its canary.json, else a sample of its graph; none without either. */
  private canaryOf(state: VersionState): Promise<FoldInCanary | undefined> {
    const { scorer, graph, canary } = state.base;
    state.canary ??= (async () => {
      const edges = canary ?? (graph ? canaryEdges(graph) : undefined);
      return edges ? FoldInCanary.build(scorer, edges, graph) : undefined;
    })().catch((error: unknown) => {
      this.log?.warn({ err: error }, 'fold-in: building the canary failed (fold-ins unchecked)');
      return undefined;
    });
    return state.canary;
  }

  /** Reads the batch's edges, fits what is new or changed in one engine call, swaps the model. */
  private async foldBatch(ids: string[]): Promise<void> {
    const base = this.base();
    if (!base) return this.queue.settle(ids, undefined);
    const state = this.stateFor(base);
    const hoods = await this.source.neighbourhoods(ids);
    const fit: { id: string; input: FoldInInput }[] = [];
    let changed = false;
    ids.forEach((id, i) => {
      const hood = hoods[i];
      if (base.scorer.findEntity(id) !== undefined) return;
      const input = hood && foldInInput(base.scorer, hood, base.graph);
      if (!input) {
        state.unfoldable.add(id);
        changed = state.cache.drop(id) || changed;
      } else if (state.heldBack.get(id) === input.fingerprint) return;
      else if (state.cache.isStale(id, input.fingerprint)) fit.push({ id, input });
    });
    const room = this.settings.maxEntities - state.cache.size;
    const fresh = fit.filter((f) => !state.cache.has(f.id));
    if (fresh.length > room) {
      // Refits of served entities go on; new ones past the bound wait for a retraining.
      const turnedAway = new Set(fresh.slice(Math.max(0, room)).map((f) => f.id));
      for (const id of turnedAway) state.overCapacity.add(id);
      fit.splice(0, fit.length, ...fit.filter((f) => !turnedAway.has(f.id)));
      this.log?.warn(
        {
          version: base.version,
          turnedAway: turnedAway.size,
          maxEntities: this.settings.maxEntities,
        },
        'fold-in: the version folds in no more entities (KGC_FOLD_IN_MAX_ENTITIES); the rest wait for the next retraining',
      );
    }
    if (fit.length > 0) {
      const started = Date.now();
      const edges: FoldInEdge[][] = fit.map((f) => f.input.edges);
      const negatives = await this.negativesOf(state);
      const rows = await base.scorer.foldInAsync(edges, {
        ...(negatives ? { negatives } : {}),
        steps: this.settings.steps,
        candidates: this.settings.candidates,
        ...(this.settings.lr !== undefined ? { lr: this.settings.lr } : {}),
        seed: FOLD_IN_SEED,
      });
      if (this.state !== state) {
        // The version changed while fitting: these rows belong to the old one; start over.
        this.queue.add(ids, true);
        return;
      }
      const d = rows.length / fit.length;
      const candidates = fit.map(({ input }, i) => ({
        row: rows.subarray(i * d, (i + 1) * d),
        edges: input.edges,
      }));
      const { admitted, impacts } = await this.admit(state, fit, candidates);
      if (this.state !== state) {
        this.queue.add(ids, true);
        return;
      }
      fit.forEach(({ id, input }, i) => {
        if (admitted.has(i)) {
          state.heldBack.delete(id);
          const row = candidates[i]!.row;
          state.cache.put(id, input.fingerprint, row, input.types, input.edges, impacts[i]);
        } else {
          state.heldBack.set(id, input.fingerprint);
          state.cache.drop(id);
        }
      });
      changed = true;
      this.log?.info(
        {
          version: base.version,
          entities: admitted.size,
          heldBack: fit.length - admitted.size,
          folded: state.cache.size,
          ms: Date.now() - started,
        },
        'folded in new entities',
      );
    }
    if (changed) {
      state.served = {
        ...withFoldedEntities(base, state.cache.rows()),
        foldInHeldBack: new Set(state.heldBack.keys()),
      };
    }
    this.queue.settle(ids, state.served);
  }
}
