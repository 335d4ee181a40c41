import { ErrorCode, KgcError } from '../../errors';
import { idProblem } from '../identifiers';
import { reservedRelationProblem } from '../suggestions/suggested-type';

/** One (head, relation, tail) edge, named by its entity ids and relation name. */
export interface EdgeKey {
  head: string;
  relation: string;
  tail: string;
}

/** The `:RejectedPrediction` key: the triple as JSON (unique, migration V0003). */
export function rejectionKey(edge: EdgeKey): string {
  return JSON.stringify([edge.head, edge.relation, edge.tail]);
}

/**
 * Refuses ids and relation names that ingest would refuse, naming the argument (`where` is
 * the path to the edge in the request, e.g. `items[2].`), before any Cypher sees them.
 */
export function checkEdgeKey(edge: EdgeKey, where = ''): void {
  const problem =
    idProblem(`${where}head`, edge.head) ??
    idProblem(`${where}relation`, edge.relation) ??
    reservedRelationProblem(`${where}relation`, edge.relation) ??
    idProblem(`${where}tail`, edge.tail);
  if (problem) throw new KgcError(ErrorCode.BAD_USER_INPUT, `Argument ${problem}.`);
}
