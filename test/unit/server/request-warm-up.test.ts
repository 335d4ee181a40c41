import type { ServingModel } from '../../../src/model';
import { coprimeStride } from '../../../src/coprime-stride';
import { warmUpRequests } from '../../../src/server/request-warm-up';

function model(entities: number, relations: number): ServingModel {
  return {
    scorer: {
      entities: Array.from({ length: entities }, (_, i) => `e${i}`),
      relations: Array.from({ length: relations }, (_, i) => `r${i}`),
    },
  } as unknown as ServingModel;
}

describe('the start-up request warm-up', () => {
  it('sends the asked number of queries, that many at once, over the whole vocabulary', async () => {
    const seen: Record<string, unknown>[] = [];
    let inFlight = 0;
    let most = 0;
    const query = async (_text: string, variables: Record<string, unknown>) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      seen.push(variables);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
    };
    const result = await warmUpRequests(query, model(50, 3), {
      queries: 200,
      concurrency: 8,
      budgetMs: 60_000,
    });
    expect(result).toEqual({ queries: 200 });
    expect(seen).toHaveLength(200);
    expect(most).toBe(8);
    expect(new Set(seen.map((v) => v.entity)).size).toBe(50);
    expect(new Set(seen.map((v) => v.relation)).size).toBe(3);
    expect(new Set(seen.map((v) => v.direction))).toEqual(new Set(['TAIL', 'HEAD']));
  });

  it('stops when its signal aborts, and sends nothing without a model', async () => {
    const abort = new AbortController();
    let sent = 0;
    const query = async () => {
      sent += 1;
      if (sent === 10) abort.abort();
      await new Promise((resolve) => setImmediate(resolve));
    };
    const result = await warmUpRequests(query, model(50, 3), {
      queries: 1000,
      concurrency: 1,
      budgetMs: 60_000,
      signal: abort.signal,
    });
    expect(result.queries).toBe(10);
    expect(
      await warmUpRequests(query, undefined, { queries: 5, concurrency: 1, budgetMs: 1 }),
    ).toEqual({ queries: 0 });
  });
});

describe('coprimeStride', () => {
  it.each([1, 2, 7, 10, 97, 1000, 14541])('visits each of %i indices once', (n) => {
    const step = coprimeStride(n);
    const visited = new Set(Array.from({ length: n }, (_, i) => (i * step) % n));
    expect(visited.size).toBe(n);
  });
});
