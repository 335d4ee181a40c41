import type { Database } from '../database';
import { idProblem } from '../identifiers';
import { mapNeo4jError } from '../neo4j-errors';
import { STREAM_ENTITY_LABELS } from '../triples/export-queries';

/**
 * Labels the service itself gives nodes (migrations/, src/graph): an ingested label may never
 * be one of them, in any letter case, nor start with `kgc` or `__` (kept for the service's own
 * and Neo4j tooling's internals), so no label file can make an entity look like a registry node.
 */
export const RESERVED_LABELS: readonly string[] = [
  'Entity',
  'ModelVersion',
  'TrainingRun',
  'ModelRegistry',
  'JobLease',
  'RetrainRequest',
  'Decision',
  'RejectedPrediction',
];
const RESERVED = new Set(RESERVED_LABELS.map((l) => l.toLowerCase()));
const RESERVED_PREFIXES = ['kgc', '__'];

/** `[entity id, labels]`. */
export type LabelRow = [string, string[]];

/** Why `value` cannot be an entity label (`what` names the field), or undefined when it can. */
export function labelProblem(what: string, value: string): string | undefined {
  const problem = idProblem(what, value);
  if (problem) return problem;
  if (value.trim() !== value) return `${what} "${value}" starts or ends with white space`;
  // `;` separates labels in a label file (and in the export's labels.tsv).
  if (value.includes(';')) return `${what} "${value}" contains ';', the label separator`;
  const lower = value.toLowerCase();
  if (RESERVED.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p))) {
    return `${what} "${value}" is reserved for kgc's own nodes (${RESERVED_LABELS.join(', ')}, kgc*, __*); rename it`;
  }
  return undefined;
}

/**
 * Adds the labels to each entity (created when absent, as N-Triples properties are). Labels
 * travel as a parameter list (Neo4j 5.26 dynamic labels), never in the query text. Adding a
 * label twice is a no-op, so a re-run is idempotent; labels are only ever added.
 */
const SET_ENTITY_LABELS = `
UNWIND $rows AS row
MERGE (e:Entity {id: row[0]})
SET e:$(row[1])`;

const LABELS_FETCH_SIZE = 5_000;

export async function writeEntityLabels(db: Database, rows: LabelRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.write((tx) => tx.run(SET_ENTITY_LABELS, { rows }));
}

/**
 * Streams each labelled entity's labels (memory holds one fetch window); returns the number of
 * labelled entities.
 */
export async function streamEntityLabels(
  db: Database,
  onEntity: (id: string, labels: readonly string[]) => void,
): Promise<number> {
  const session = db.openSession('READ', LABELS_FETCH_SIZE);
  let count = 0;
  try {
    const result = session.run(STREAM_ENTITY_LABELS, { entity: 'Entity' });
    for await (const record of result) {
      onEntity(record.get(0) as string, record.get(1) as string[]);
      count += 1;
    }
    return count;
  } catch (error) {
    throw mapNeo4jError(error, db.target.uri);
  } finally {
    await session.close();
  }
}
