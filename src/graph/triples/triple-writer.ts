import type { Database, WriteOptions } from '../database';
import { compareIds, rowsInLockOrder } from '../lock-order';
import { SOURCE_PARAMS } from '../predictions/provenance';
import {
  CONFIRM_ACCEPTED_PREDICTIONS,
  COUNT_MISSING_ENDPOINTS,
  CREATE_MISSING_EDGES,
  LOCK_HEADS,
  MERGE_ENTITIES,
  SET_ENTITY_PROPERTIES,
} from './ingest-queries';

/** `[head, relation, tail]`: plain strings, exactly as they are stored. */
export type TripleRow = [string, string, string];
/** `[entity, propertyKey, value]`. */
export type PropertyRow = [string, string, string];

export interface BatchResult {
  /** Edges this batch created. */
  created: number;
  /** Distinct edges of the batch that were already in the graph. */
  present: number;
  /** Of those, accepted predictions that this batch turned into facts. */
  confirmed: number;
  /** Edges not written because an endpoint entity vanished (deleted concurrently). */
  failed: number;
  /** Rows dropped because the same edge appeared earlier in the same batch. */
  duplicates: number;
}

/**
 * Idempotent batched writes. Each batch is one or two transactions: one that MERGEs the
 * entities not yet seen in this run, then one that creates the missing edges. Entities go
 * first and commit on their own because index seeks against thousands of nodes created in the
 * same transaction are far slower than against committed ones (measured: minutes versus a
 * second for 10k rows). A kill between the two leaves only extra entities, which the re-run
 * needs anyway, so re-running converges to the same graph.
 */
export class TripleWriter {
  /** Entities committed by this writer; later batches skip MERGEing them again. */
  private readonly knownEntities = new Set<string>();

  constructor(private readonly db: Database) {}

  /** `options.budgetMs` bounds each of the batch's transactions (see ingest's BatchSizer). */
  async writeEdges(rows: TripleRow[], options: WriteOptions = {}): Promise<BatchResult> {
    const distinct = rowsInLockOrder(dedupe(rows));
    const fresh: string[] = [];
    for (const [h, , t] of distinct) {
      for (const id of [h, t]) {
        if (!this.knownEntities.has(id)) {
          this.knownEntities.add(id);
          fresh.push(id);
        }
      }
    }
    if (fresh.length > 0) {
      // MERGE locks each id's index entry in row order (lock-order.ts).
      fresh.sort(compareIds);
      try {
        await this.db.write((tx) => tx.run(MERGE_ENTITIES, { ids: fresh }), options);
      } catch (error) {
        for (const id of fresh) this.knownEntities.delete(id);
        throw error;
      }
    }
    if (distinct.length === 0)
      return { created: 0, present: 0, confirmed: 0, failed: 0, duplicates: rows.length };
    const heads = [...new Set(distinct.map(([h]) => h))];
    const { created, confirmed, failed } = await this.db.write(async (tx) => {
      await tx.run(LOCK_HEADS, { ids: heads });
      // With the heads locked no revert (which locks the head first) can remove an edge of
      // these heads before this commits: one pass sees what the batch must create.
      const made = (
        await tx.run(CREATE_MISSING_EDGES, { rows: distinct })
      ).summary.counters.updates().relationshipsCreated;
      // Only a batch with uncreated rows can hold an accepted prediction or a row whose
      // endpoint is gone.
      if (made === distinct.length) return { created: made, confirmed: 0, failed: 0 };
      const confirm = await tx.run(CONFIRM_ACCEPTED_PREDICTIONS, {
        rows: distinct,
        ...SOURCE_PARAMS,
      });
      const check = await tx.run(COUNT_MISSING_ENDPOINTS, { rows: distinct });
      return {
        created: made,
        confirmed: Number(confirm.records[0]?.get('confirmed') ?? 0),
        failed: Number(check.records[0]?.get('missing') ?? 0),
      };
    }, options);
    // Some entity this writer thought committed is gone: MERGE this batch's entities again next time.
    if (failed > 0) {
      for (const [h, , t] of distinct) {
        this.knownEntities.delete(h);
        this.knownEntities.delete(t);
      }
    }
    return {
      created,
      present: distinct.length - created - failed,
      confirmed,
      failed,
      duplicates: rows.length - distinct.length,
    };
  }

  /** Returns how many properties Neo4j reports as set (unchanged values count too). */
  async writeProperties(rows: PropertyRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const set = await this.db.write(async (tx) => {
      const result = await tx.run(SET_ENTITY_PROPERTIES, { rows });
      return result.summary.counters.updates().propertiesSet;
    });
    for (const [id] of rows) this.knownEntities.add(id);
    return set;
  }
}

function dedupe(rows: TripleRow[]): TripleRow[] {
  const seen = new Set<string>();
  const out: TripleRow[] = [];
  for (const row of rows) {
    // \u0000 cannot occur in a valid id (validation rejects control characters).
    const key = `${row[0]}\u0000${row[1]}\u0000${row[2]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  return out;
}
