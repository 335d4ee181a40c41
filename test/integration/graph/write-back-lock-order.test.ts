import { acceptPredictions, Database } from '../../../src/graph';
import { testTarget, uniqueId } from '../../support/test-database';

describe('two overlapping acceptPredictions at once', () => {
  it('both commit, without a deadlock, whatever the order of their items', async () => {
    const tag = uniqueId('wb');
    const retried: string[] = [];
    const open = () =>
      new Database(
        testTarget(),
        { maxRetrySeconds: 5, connectTimeoutMs: 5000, txTimeoutMs: 30_000 },
        { onRetry: (code) => retried.push(code) },
      );
    const [first, second] = [open(), open()];
    const ids = Array.from({ length: 12 }, (_, i) => `e${String(i).padStart(2, '0')}_${tag}`);
    try {
      await first.write((tx) => tx.run('UNWIND $ids AS id CREATE (:Entity {id: id})', { ids }));
      for (let round = 0; round < 4; round++) {
        // Each request locks every head; the second lists them the other way round.
        const items = (relation: string) =>
          ids.slice(0, 6).map((head, i) => ({
            head,
            relation: `${relation}_${round}_${tag}`,
            tail: ids[6 + i]!,
            score: null,
          }));
        const [a, b] = await Promise.all([
          acceptPredictions(first, items('ra'), 'admin'),
          acceptPredictions(second, items('rb').reverse(), 'admin'),
        ]);
        // Answers come back in request order.
        expect(a.map((edge) => edge.head)).toEqual(ids.slice(0, 6));
        expect(b.map((edge) => edge.head)).toEqual(ids.slice(0, 6).reverse());
      }
      const edges = await first.read((tx) =>
        tx.run('MATCH (h:Entity)-[r]->() WHERE h.id ENDS WITH $tag RETURN count(r) AS n', {
          tag,
        }),
      );
      expect(Number(edges.records[0]?.get('n'))).toBe(4 * 2 * 6);
      expect(retried.filter((code) => code.includes('Deadlock'))).toEqual([]);
    } finally {
      await first.write((tx) =>
        tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
      );
      await first.close();
      await second.close();
    }
  });
});
