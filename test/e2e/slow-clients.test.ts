import http from 'node:http';
import net from 'node:net';
import { createLogger } from '../../src/server/logger';
import { startServer } from '../../src/server/start-server';
import { MIGRATIONS } from '../support/served-model';
import { testServerConfig } from '../support/test-database';

/** What a raw client saw: the bytes answered and when (ms after connecting) the server closed. */
interface Seen {
  answer: string;
  closedAfterMs: number;
}

/**
 * Connects, writes `first`, then `drip` one byte every `everyMs` until the server closes the
 * connection (or `giveUpMs` passes: then closedAfterMs is Infinity).
 */
function slowClient(port: number, first: string, drip: string, everyMs: number, giveUpMs = 8000) {
  return new Promise<Seen>((resolve) => {
    const started = Date.now();
    let answer = '';
    let i = 0;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
    const timer = setInterval(() => {
      if (socket.writable) socket.write(drip[i++ % drip.length]!);
    }, everyMs);
    const done = (closedAfterMs: number) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ answer, closedAfterMs });
    };
    const giveUp = setTimeout(() => done(Infinity), giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => done(Date.now() - started));
    socket.on('error', () => undefined); // a reset is a close too
  });
}

/** One request on a fresh connection (no keep-alive pool): the status, or the error. */
function getOnce(port: number, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, agent: false, headers: { connection: 'close' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.setTimeout(3000, () => request.destroy(new Error('timeout')));
  });
}

describe('slow and broken clients', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  let server: Awaited<ReturnType<typeof startServer>>;
  let port: number;
  let createServer: jest.SpyInstance;

  beforeAll(async () => {
    createServer = jest.spyOn(http, 'createServer');
    server = await startServer(
      testServerConfig({
        KGC_HTTP_HEADERS_TIMEOUT_MS: '1000',
        KGC_HTTP_REQUEST_TIMEOUT_MS: '2000',
        KGC_HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
      }),
      { migrationsDir: MIGRATIONS, logger },
    );
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    createServer.mockRestore();
    await server?.stop();
  });

  it('closes slowloris connections after the header timeout and keeps answering /healthz', async () => {
    const attackers = Array.from({ length: 50 }, () =>
      slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'abcdefgh', 100),
    );
    // Mid-attack, a normal client is answered at once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    expect(await getOnce(port, '/healthz')).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    const seen = await Promise.all(attackers);
    // Closed after the 1 s timeout (Node sweeps every 250 ms here), answered 408, never left
    // open. Node 20 once closed one of the 50 after 123 ms in CI on a loaded machine (Node 24
    // never has): at most one may be early, and it too must be closed.
    const early = seen.filter(({ closedAfterMs }) => closedAfterMs < 900);
    expect(early.length).toBeLessThanOrEqual(1);
    for (const { answer, closedAfterMs } of seen) {
      expect(closedAfterMs).toBeLessThan(4000);
      if (closedAfterMs >= 900) expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    }
    expect(await getOnce(port, '/healthz')).toBe(200);
  });

  it('closes a connection that sends nothing at all', async () => {
    const silent = await slowClient(port, '', '', 1_000_000);
    expect(silent.closedAfterMs).toBeLessThan(4000);
  });

  it('closes a request whose body trickles in after the request timeout, and logs no error', async () => {
    const head =
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const before = lines.length;
    const trickle = await slowClient(port, head, '{"query":"{ __typename }"}', 100);
    expect(trickle.closedAfterMs).toBeGreaterThanOrEqual(1900);
    expect(trickle.closedAfterMs).toBeLessThan(5000);
    expect(trickle.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.slice(before).filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(await getOnce(port, '/healthz')).toBe(200);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const idle = await slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 1_000_000);
    expect(idle.answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(idle.closedAfterMs).toBeGreaterThanOrEqual(400);
    expect(idle.closedAfterMs).toBeLessThan(3000);
  });

  it("logs an 'error' the server emits after listening, and keeps serving", async () => {
    const httpServer = createServer.mock.results.at(-1)?.value as http.Server;
    expect(httpServer.listening).toBe(true);
    const error = Object.assign(new Error('accept failed: too many open files'), {
      code: 'EMFILE',
    });
    httpServer.emit('error', error); // with no listener, this would throw and end the process
    const logged = lines.find((l) => l.msg === 'HTTP server error; still serving');
    expect(logged).toMatchObject({ level: 50, code: 'EMFILE' });
    expect(await getOnce(port, '/healthz')).toBe(200);
  });
});

describe('the connection limit', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let port: number;

  beforeAll(async () => {
    server = await startServer(testServerConfig({ KGC_HTTP_MAX_CONNECTIONS: '5' }), {
      migrationsDir: MIGRATIONS,
    });
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('drops connections past the limit at once, and admits again when one closes', async () => {
    const held = Array.from({ length: 5 }, () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      return socket;
    });
    await Promise.all(held.map((s) => new Promise((resolve) => s.once('connect', resolve))));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Five held open (within the default 10 s header timeout): the sixth is closed unanswered.
    const extra = await slowClient(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 1_000_000);
    expect(extra.answer).toBe('');
    expect(extra.closedAfterMs).toBeLessThan(1000);
    expect(await getOnce(port, '/healthz')).not.toBe(200);

    held[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await getOnce(port, '/healthz')).toBe(200);
    for (const socket of held) socket.destroy();
  });
});
