import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ServingModel } from '../model';

/**
 * `kgc_suggestions_held`: stored suggestions the served version holds named in memory for the
 * review queue (bounded: the lists asked for least recently are dropped past the bound).
 */
export function suggestionsMetrics(
  registry: Registry,
  model: () => ServingModel | undefined,
): void {
  new Gauge({
    name: 'kgc_suggestions_held',
    help: 'Stored suggestions held in memory for the review queue and reviewStats (bounded)',
    registers: [registry],
    collect() {
      this.set(model()?.suggestions?.heldSuggestions ?? 0);
    },
  });
}
