/**
 * One lock order for every write of many rows: by head, then tail, then relation. Creating an
 * edge locks both its nodes and MERGEing an entity locks its index entry; two overlapping
 * batches taking them in opposite orders would each hold what the other waits for (a deadlock,
 * retried at the cost of the whole batch).
 */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `[head, relation, tail]` rows, sorted in place. */
export function rowsInLockOrder<T extends readonly [string, string, string]>(rows: T[]): T[] {
  return rows.sort(
    (x, y) => compareIds(x[0], y[0]) || compareIds(x[2], y[2]) || compareIds(x[1], y[1]),
  );
}

/** The indexes of `keys` in lock order (callers keep answering in request order). */
export function indexesInLockOrder(
  keys: readonly { head: string; relation: string; tail: string }[],
): number[] {
  return keys
    .map((_, i) => i)
    .sort((i, j) => {
      const x = keys[i]!;
      const y = keys[j]!;
      return (
        compareIds(x.head, y.head) ||
        compareIds(x.tail, y.tail) ||
        compareIds(x.relation, y.relation)
      );
    });
}
