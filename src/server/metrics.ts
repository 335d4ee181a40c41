import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiMetrics } from '../resolvers';
import type { RequestLabels } from './request-labels';

/** Seconds; API latencies live between a tenth of a millisecond and a few seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/**
 * The service's Prometheus metrics, on a registry of its own (one per server, so several
 * servers in one process, as in tests, do not share counters).
 */
export class ServerMetrics implements ApiMetrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'kgc_request_duration_seconds',
    help: 'HTTP request latency by route, method, GraphQL operation and status (fixed label sets)',
    labelNames: ['route', 'method', 'operation', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly scoring = new Histogram({
    name: 'kgc_scoring_duration_seconds',
    help: 'Engine time per scoring call (one call may answer a batch of queries)',
    labelNames: ['queries'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly neo4jReads = new Histogram({
    name: 'kgc_neo4j_read_duration_seconds',
    help: 'Neo4j read transaction latency',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly errors = new Counter({
    name: 'kgc_errors_total',
    help: 'Errors answered to clients, by code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private readonly decisions = new Counter({
    name: 'kgc_decisions_total',
    help: 'Admin decisions on predictions, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly model = new Gauge({
    name: 'kgc_model_info',
    help: 'The serving model version (value 1), or none',
    labelNames: ['version'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'kgc_' });
  }

  observeRequest(labels: RequestLabels, seconds: number): void {
    this.requests.observe({ ...labels }, seconds);
  }

  observeScoring(queries: number, seconds: number): void {
    const size = queries === 1 ? '1' : queries <= 16 ? '2-16' : queries <= 64 ? '17-64' : '65+';
    this.scoring.observe({ queries: size }, seconds);
  }

  observeNeo4jRead(seconds: number): void {
    this.neo4jReads.observe(seconds);
  }

  countError(code: string): void {
    this.errors.inc({ code });
  }

  countDecision(kind: string, n = 1): void {
    this.decisions.inc({ kind }, n);
  }

  setModelVersion(version: string | undefined): void {
    this.model.reset();
    this.model.set({ version: version ?? 'none' }, version ? 1 : 0);
  }
}
