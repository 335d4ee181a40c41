import crypto from 'node:crypto';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS } from '../support/served-model';
import { testServerConfig } from '../support/test-database';

/** Series (non-comment lines) of /metrics, by metric name. */
async function seriesOf(base: string): Promise<Map<string, string[]>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const series = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = line.split(/[{ ]/)[0]!;
    series.set(name, [...(series.get(name) ?? []), line.replace(/ [^ ]+$/, '')]);
  }
  return series;
}

/**
 * The service's own series. Node's default metrics (kgc_nodejs_*, kgc_process_*) are left out:
 * their labels come from the runtime (a new GC kind adds a whole histogram), never from a request.
 */
const count = (series: Map<string, string[]>) =>
  [...series]
    .filter(([name]) => !/^kgc_(nodejs|process)_/.test(name))
    .reduce((sum, [, lines]) => sum + lines.length, 0);

/**
 * A path an attacker might send: random segments, escapes, route names, a query string; never
 * one of the real routes (so every request is a 404 and the series stay comparable).
 */
function randomPath(): string {
  const pieces = [
    () => crypto.randomBytes(1 + crypto.randomInt(12)).toString('hex'),
    () => encodeURIComponent(crypto.randomBytes(4).toString('latin1')),
    () => 'graphql',
    () => 'healthz',
    () => '...',
    () => `%${crypto.randomBytes(1).toString('hex')}`,
  ];
  const segments = Array.from({ length: 1 + crypto.randomInt(5) }, () =>
    pieces[crypto.randomInt(pieces.length)]!(),
  );
  const query = crypto.randomInt(3) === 0 ? `?q=${crypto.randomBytes(3).toString('hex')}` : '';
  const path = `/${segments.join('/')}${query}`;
  // fetch resolves dot segments (`%2e%2e` among them): draw again if that lands on a route.
  const resolved = new URL(path, 'http://x').pathname;
  return ['/graphql', '/healthz', '/readyz', '/metrics'].includes(resolved) ? randomPath() : path;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'PROPFIND'];

describe('/metrics under requests for random paths', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let base: string;

  beforeAll(async () => {
    server = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    base = server.url.replace(/\/graphql$/, '');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps a fixed set of series after 10,000 requests for random paths and methods', async () => {
    // Warm-up: every route, and each method once against an unknown path.
    for (const route of ['/healthz', '/readyz', '/metrics']) await fetch(`${base}${route}`);
    await gql(server.url, '{ __typename }');
    for (const method of METHODS) await fetch(`${base}${randomPath()}`, { method });
    const before = await seriesOf(base);
    const requestSeries = before.get('kgc_request_duration_seconds_count') ?? [];
    expect(requestSeries.some((s) => s.includes('route="other"'))).toBe(true);

    const total = 10_000;
    let sent = 0;
    const statuses = new Map<number, number>();
    const worker = async () => {
      while (sent < total) {
        sent += 1;
        const method = METHODS[crypto.randomInt(METHODS.length)]!;
        const response = await fetch(`${base}${randomPath()}`, { method });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect([...statuses.keys()]).toEqual([404]);

    const after = await seriesOf(base);
    // The request histogram: exactly the series it had (the counts grew, not the labels).
    expect(after.get('kgc_request_duration_seconds_count')).toEqual(requestSeries);
    expect(after.get('kgc_request_duration_seconds_bucket')).toEqual(
      before.get('kgc_request_duration_seconds_bucket'),
    );
    expect(after.get('kgc_errors_total') ?? []).toEqual(before.get('kgc_errors_total') ?? []);
    // Every series of the service's own: none added by the requests.
    expect(count(after)).toBe(count(before));
    const labels = (after.get('kgc_request_duration_seconds_count') ?? []).join('\n');
    expect(labels).not.toMatch(/route="\/(?!graphql|healthz|readyz|metrics)/);
    expect(labels).toMatch(/route="other",method="other",operation="none",status="404"/);
    const counted = /route="other",method="GET",operation="none",status="404"/;
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('kgc_request_duration_seconds_count') && counted.test(l));
    expect(Number(line?.split(' ').pop())).toBeGreaterThan(total / METHODS.length / 2);
  }, 240_000);
});
