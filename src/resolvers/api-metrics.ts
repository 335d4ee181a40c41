/** What resolvers report to the server's metrics (src/server/metrics.ts implements it). */
export interface ApiMetrics {
  observeScoring(queries: number, seconds: number): void;
  countDecision(kind: string, n?: number): void;
}
