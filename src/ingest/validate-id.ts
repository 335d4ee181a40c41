import { idProblem, reservedRelationProblem } from '../graph';
import type { ParsedLine } from './parsed-line';

export { idProblem, MAX_ID_LENGTH } from '../graph';

/** A validated edge, or the first problem found. */
export function checkedEdge(head: string, relation: string, tail: string): ParsedLine {
  const problem =
    idProblem('head id', head) ??
    idProblem('relation name', relation) ??
    reservedRelationProblem('relation name', relation) ??
    idProblem('tail id', tail);
  return problem ? { kind: 'invalid', reason: problem } : { kind: 'edge', head, relation, tail };
}
