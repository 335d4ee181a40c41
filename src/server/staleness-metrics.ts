import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ServingModel } from '../model';
import type { StalenessCounts, StalenessTracker } from '../resolvers';

/** A scrape waits this long for fresh counts, then shows the last ones read. */
const SCRAPE_WAIT_MS = 1000;

/**
 * `kgc_stale_new_entities`, `kgc_stale_new_edges` and `kgc_folded_in_entities`: the serving
 * version's staleness (Query.model.staleness), read when scraped. One read serves the three
 * gauges of a scrape; a slow or failed read never holds the scrape past SCRAPE_WAIT_MS, it
 * shows the last counts instead. All 0 while no model serves. No labels (kgc_model_info
 * names the version).
 */
export function stalenessMetrics(
  registry: Registry,
  model: () => ServingModel | undefined,
  tracker: StalenessTracker,
): void {
  let pending: Promise<StalenessCounts | undefined> | undefined;
  const read = async (): Promise<StalenessCounts | undefined> => {
    const serving = model();
    if (!serving) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), SCRAPE_WAIT_MS);
      timer.unref();
    });
    try {
      const counts = await Promise.race([tracker.read(serving).catch(() => undefined), late]);
      return counts ?? tracker.last();
    } finally {
      clearTimeout(timer);
    }
  };
  // The registry collects every metric of a scrape at once: the first gauge starts the read.
  const current = () =>
    (pending ??= read().finally(() => {
      pending = undefined;
    }));
  const gauge = (name: string, help: string, value: (c: StalenessCounts) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const counts = model() ? await current() : undefined;
        this.set(counts ? value(counts) : 0);
      },
    });
  gauge(
    'kgc_stale_new_entities',
    'Connected entities the serving model version was not trained on',
    (c) => c.newEntities,
  );
  gauge(
    'kgc_stale_new_edges',
    "Edges beyond the serving version's training snapshot (added since, net of removals)",
    (c) => c.newEdges ?? 0,
  );
  gauge(
    'kgc_folded_in_entities',
    'New entities answered by fold-in for the serving model version',
    (c) => c.foldedIn,
  );
  gauge(
    'kgc_fold_in_over_capacity_entities',
    'New entities the serving model version does not fold in because it holds KGC_FOLD_IN_MAX_ENTITIES already (they wait for a retraining)',
    (c) => c.foldInOverCapacity,
  );
  gauge(
    'kgc_fold_in_held_back_entities',
    "New entities whose fold-in was held back for the serving model version (it would have harmed the version's held-out answers)",
    (c) => c.foldInHeldBack,
  );
}
