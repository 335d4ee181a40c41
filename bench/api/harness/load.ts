import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadOptions {
  base: string;
  /** A fresh request body (JSON) for every request. */
  body: () => string;
  connections: number;
  seconds: number;
  /** autocannon's overallRate: requests per second over all connections. */
  overallRate?: number;
  /** Sees every 2xx body and when it arrived (performance.now() ms); e.g. the model version. */
  onBody?: (body: string, at: number) => void;
  /** Stops the run early (its results so far are returned). */
  signal?: AbortSignal;
}

/** One response: when it arrived (performance.now(), ms) and its latency (ms). */
export interface Sample {
  at: number;
  ms: number;
}

export interface LoadResult {
  connections: number;
  overallRate: number | null;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Socket errors and timeouts, non-2xx answers, 2xx answers carrying GraphQL `errors`. */
  errors: number;
  timeouts: number;
  non2xx: number;
  graphqlErrors: number;
  /** The first few failed bodies, to report what went wrong. */
  errorSamples: string[];
  samples: Sample[];
}

/** Exact percentile (nearest rank) of latencies in ms. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarize(ms: number[]): Pick<LoadResult, 'p50' | 'p90' | 'p99' | 'max' | 'mean'> {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
  };
}

/**
 * autocannon over real HTTP against `/graphql`. Latencies are taken from every response
 * (float ms, from autocannon's own timer), not from its histogram, which keeps whole
 * milliseconds only and, with a rate, adds coordinated-omission samples at a 1 ms interval.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const samples: Sample[] = [];
  const errorSamples: string[] = [];
  let graphqlErrors = 0;
  const note = (body: string) => {
    if (errorSamples.length < 5) errorSamples.push(body.slice(0, 400));
  };
  let finish: (result: autocannon.Result) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: `${options.base}/graphql`,
      connections: options.connections,
      duration: options.seconds,
      overallRate: options.overallRate,
      timeout: 10,
      requests: [
        {
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: options.body() }),
          onResponse: (status, body) => {
            if (status < 200 || status >= 300) {
              note(`HTTP ${status}: ${body}`);
              return;
            }
            if (body.includes('"errors"')) {
              graphqlErrors += 1;
              note(body);
              return;
            }
            options.onBody?.(body, performance.now());
          },
        },
      ],
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  const stop = () => instance.stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    samples.push({ at: performance.now(), ms: responseTime });
  });
  instance.on('reqError', (error: Error) => note(`request error: ${error.message}`));
  const result = await finished.finally(() => options.signal?.removeEventListener('abort', stop));
  const seconds = result.duration;
  return {
    connections: options.connections,
    overallRate: options.overallRate ?? null,
    seconds,
    requests: samples.length,
    rps: samples.length / seconds,
    ...summarize(samples.map((s) => s.ms)),
    errors: result.errors + result.non2xx + graphqlErrors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    graphqlErrors,
    errorSamples,
    samples,
  };
}

/**
 * Open-loop load at an even `rate`: request i is due at start + i/rate whatever the answers do,
 * sent on a keep-alive pool, and its latency counts from when it was due (a late send is the
 * server's queueing, not hidden). autocannon's overallRate is not even: each connection sends
 * its share of a second back to back at the start of every second, then waits.
 */
export async function pacedLoad(options: {
  base: string;
  body: () => string;
  rate: number;
  seconds: number;
  signal?: AbortSignal;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(`${options.base}/graphql`);
  const samples: Sample[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let graphqlErrors = 0;
  let non2xx = 0;
  const total = Math.round(options.rate * options.seconds);
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  const send = (due: number) => {
    const body = options.body();
    const done = new Promise<void>((resolve) => {
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          timeout: 10_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () => {
            const at = performance.now();
            samples.push({ at, ms: at - due });
            const text = Buffer.concat(chunks).toString('utf8');
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              non2xx += 1;
              if (errorSamples.length < 5)
                errorSamples.push(`HTTP ${status}: ${text.slice(0, 400)}`);
            } else if (text.includes('"errors"')) {
              graphqlErrors += 1;
              if (errorSamples.length < 5) errorSamples.push(text.slice(0, 400));
            }
            resolve();
          });
        },
      );
      request.on('error', (error) => {
        errors += 1;
        if (errorSamples.length < 5) errorSamples.push(`request error: ${error.message}`);
        resolve();
      });
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + (next * 1000) / options.rate <= now) {
        send(start + (next * 1000) / options.rate);
        next += 1;
      }
      if (next >= total || options.signal?.aborted) return resolve();
      setTimeout(tick, Math.max(0, start + (next * 1000) / options.rate - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  return {
    connections: 0,
    overallRate: options.rate,
    seconds,
    requests: samples.length,
    rps: samples.length / seconds,
    ...summarize(samples.map((s) => s.ms)),
    errors: errors + non2xx + graphqlErrors,
    timeouts: 0,
    non2xx,
    graphqlErrors,
    errorSamples,
    samples,
  };
}
