import type { Database } from '../database';

const PRESENT = `
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
RETURN i, EXISTS {
  MATCH (:Entity {id: row[0]})-[e]->(:Entity {id: row[2]}) WHERE type(e) = row[1]
} AS present`;

/** Which of the `[head, relation, tail]` edges are in the graph now, in order. */
export async function edgesPresent(
  db: Database,
  rows: readonly (readonly [string, string, string])[],
): Promise<boolean[]> {
  if (rows.length === 0) return [];
  const result = await db.read((tx) => tx.run(PRESENT, { rows }));
  const present = rows.map(() => false);
  for (const record of result.records)
    present[record.get('i') as number] = record.get('present') as boolean;
  return present;
}
