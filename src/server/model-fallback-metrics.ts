import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { FollowerEvents, ModelFallback } from './model-follower';

/**
 * `kgc_model_fallback` (1 while the registry's active version is refused because its files do
 * not load, and the server answers with an earlier version or none) and
 * `kgc_model_load_failures_total` (versions refused, by version). Alert on the gauge.
 */
export function modelFallbackMetrics(
  registry: Registry,
  fallback: () => ModelFallback | undefined,
): Required<Pick<FollowerEvents, 'onRefused'>> {
  new Gauge({
    name: 'kgc_model_fallback',
    help: 'Whether the active model version is refused (files do not load): 1 while serving an earlier version or none',
    registers: [registry],
    collect() {
      this.set(fallback() ? 1 : 0);
    },
  });
  const failures = new Counter({
    name: 'kgc_model_load_failures_total',
    help: 'Model versions refused because their files do not load',
    labelNames: ['version'] as const,
    registers: [registry],
  });
  return { onRefused: (version) => failures.inc({ version }) };
}
