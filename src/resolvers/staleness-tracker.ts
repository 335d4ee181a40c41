import { countUnknownEntities, entityEdgeCount, entityNodeCount } from '../graph';
import type { Database } from '../graph';
import type { ServingModel } from '../model';

/** How far the graph has moved on from the serving version (Query.model.staleness). */
export interface StalenessCounts {
  /** Connected entities (in the version's relation scope) its vocabulary lacks. */
  newEntities: number;
  /** Edges now minus edges of its snapshot (in scope, at least 0); null: no snapshot record. */
  newEdges: number | null;
  foldedIn: number;
  /** New entities whose fold-in was held back: it would have harmed the version's answers. */
  foldInHeldBack: number;
  /** New entities not folded in because the version holds KGC_FOLD_IN_MAX_ENTITIES already. */
  foldInOverCapacity: number;
  sinceVersion: string;
}

/**
 * Entities folded in for a version (the fold-in service answers; read on every staleness read,
 * so it must be cheap and synchronous). Default: none.
 */
export type FoldedInCount = (version: string) => number;

export interface StalenessOptions {
  foldedIn?: FoldedInCount;
  /** Entities whose fold-in the canary held back (same shape). Default: none. */
  heldBack?: FoldedInCount;
  /** Entities past KGC_FOLD_IN_MAX_ENTITIES (same shape). Default: none. */
  overCapacity?: FoldedInCount;
  /** At most one entity scan per this interval; a read that needs a fresher one waits for it. */
  minScanIntervalMs?: number;
  /** A scan is redone after this long even when the graph's counts have not moved. */
  maxScanAgeMs?: number;
}

interface EntityScan {
  version: string;
  /** The count-store readings the scan was taken at: while they hold, so does its answer. */
  nodes: number;
  edges: number;
  at: number;
  newEntities: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Staleness of the serving version, cheap enough to read on every request and every scrape.
 * Edges: one count-store read against the edge count the version recorded (constant time, no
 * scan). Entities: a scan of the entity nodes against the model's vocabulary, redone only when
 * the count store's entity or edge counts moved (or after `maxScanAgeMs`), at most once per
 * `minScanIntervalMs`, and shared by every caller waiting at the same time.
 */
export class StalenessTracker {
  private scan: EntityScan | undefined;
  private scanning: Promise<EntityScan> | undefined;
  private latest: StalenessCounts | undefined;
  private readonly foldedIn: FoldedInCount;
  private readonly heldBack: FoldedInCount;
  private readonly overCapacity: FoldedInCount;
  private readonly minScanIntervalMs: number;
  private readonly maxScanAgeMs: number;

  constructor(
    private readonly db: Database,
    options: StalenessOptions = {},
  ) {
    this.foldedIn = options.foldedIn ?? (() => 0);
    this.heldBack = options.heldBack ?? (() => 0);
    this.overCapacity = options.overCapacity ?? (() => 0);
    this.minScanIntervalMs = options.minScanIntervalMs ?? 1000;
    this.maxScanAgeMs = options.maxScanAgeMs ?? 5 * 60_000;
  }

  /** The last counts read (undefined before the first): what a scrape shows when a read is slow. */
  last(): StalenessCounts | undefined {
    return this.latest;
  }

  async read(model: ServingModel): Promise<StalenessCounts> {
    const scope = model.snapshot?.relationFilter ?? null;
    const [edges, nodes] = await Promise.all([
      entityEdgeCount(this.db, scope),
      entityNodeCount(this.db),
    ]);
    const scan = await this.entityScan(model, scope, nodes, edges);
    const counts: StalenessCounts = {
      newEntities: scan.newEntities,
      newEdges: model.snapshot ? Math.max(0, edges - model.snapshot.triples) : null,
      foldedIn: this.foldedIn(model.version),
      foldInHeldBack: this.heldBack(model.version),
      foldInOverCapacity: this.overCapacity(model.version),
      sinceVersion: model.version,
    };
    this.latest = counts;
    return counts;
  }

  private async entityScan(
    model: ServingModel,
    scope: readonly string[] | null,
    nodes: number,
    edges: number,
  ): Promise<EntityScan> {
    const fresh = (scan: EntityScan | undefined): scan is EntityScan =>
      scan !== undefined &&
      scan.version === model.version &&
      scan.nodes === nodes &&
      scan.edges === edges &&
      Date.now() - scan.at < this.maxScanAgeMs;
    if (fresh(this.scan)) return this.scan;
    // A scan under way for this version answers for everyone waiting (it may predate a write
    // that raced it by a few milliseconds: the next read sees the moved counts and scans again).
    // A failed scan is not shared: each caller then tries its own.
    while (this.scanning) {
      const pending = await this.scanning.catch(() => undefined);
      if (pending?.version === model.version) return pending;
    }
    const scanning = this.runScan(model, scope, nodes, edges).finally(() => {
      this.scanning = undefined;
    });
    this.scanning = scanning;
    return scanning;
  }

  private async runScan(
    model: ServingModel,
    scope: readonly string[] | null,
    nodes: number,
    edges: number,
  ): Promise<EntityScan> {
    const wait = (this.scan?.at ?? 0) + this.minScanIntervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    const { scorer, folded } = model;
    // Folded-in entities are served but still new: a retraining has not taken them in.
    const newEntities = await countUnknownEntities(
      this.db,
      scope,
      (id) => scorer.findEntity(id) !== undefined && !folded?.ids.has(id),
    );
    const scan = { version: model.version, nodes, edges, at: Date.now(), newEntities };
    this.scan = scan;
    return scan;
  }
}
