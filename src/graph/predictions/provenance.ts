/**
 * Provenance of an edge written back from a prediction. The properties are namespaced `kgc_` so
 * they never collide with a user's own edge properties (an app's edge may well carry its own
 * `source` or `probability`). docs/ingest.md states the rule; migration V0007 renamed the
 * unprefixed properties of earlier versions.
 *
 * - `kgc_source = 'prediction'`: an accepted prediction; revertible.
 * - `kgc_source = 'ingest'`: accepted as a prediction, then ingested as a fact
 *   (`kgc_confirmed_at` says when); the `kgc_accepted_*` history stays, but it is a fact now and
 *   a revert refuses it.
 * - no `kgc_source`: a fact.
 */
export const EDGE_PROVENANCE = {
  source: 'kgc_source',
  modelVersion: 'kgc_model_version',
  logit: 'kgc_logit',
  probability: 'kgc_probability',
  acceptedBy: 'kgc_accepted_by',
  acceptedAt: 'kgc_accepted_at',
  confirmedAt: 'kgc_confirmed_at',
} as const;

/** Values of `kgc_source`; queries take them as parameters, never spliced into the text. */
export const EDGE_SOURCE = { prediction: 'prediction', ingest: 'ingest' } as const;
export type EdgeSource = (typeof EDGE_SOURCE)[keyof typeof EDGE_SOURCE];

/** The provenance values as query parameters (`$prediction`, `$ingest`). */
export const SOURCE_PARAMS = {
  prediction: EDGE_SOURCE.prediction,
  ingest: EDGE_SOURCE.ingest,
} as const;

/** What an edge's properties (`e {.*}`) say about where it came from. */
export function edgeSource(properties: Record<string, unknown> | null): EdgeSource | null {
  const source = properties?.[EDGE_PROVENANCE.source];
  return source === EDGE_SOURCE.prediction || source === EDGE_SOURCE.ingest ? source : null;
}
