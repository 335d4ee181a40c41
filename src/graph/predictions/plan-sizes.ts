/**
 * One list length per plan Neo4j 5.26 keeps for a query with a list parameter: it plans a query
 * again for each size bucket of its list parameters (1, 2-10, 11-100, 101-1,000, more; measured
 * on the known-answers read: the first run in each bucket plans, 300 ms to a second on a fresh
 * server). A warm-up runs a read once per bucket up to the longest list the API sends.
 */
export function planSizes(longest: number): number[] {
  return [1, 2, 11, 101, 1001].filter((size) => size <= Math.max(1, longest));
}
