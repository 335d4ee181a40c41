import crypto from 'node:crypto';
import type { GraphIndex } from '../rules/graph-index';
import type { Neighbourhood } from './fold-in-source';
import { knownAnswers } from './known-answers';

/** An edge as the engine's fold-in takes it: base relation id, base model entity id. */
export interface FoldInEdge {
  relation: number;
  other: number;
  /** true: `(new, relation, other)`; false: `(other, relation, new)`. */
  outgoing: boolean;
  /** The known answers of the query the edge makes the new entity an answer of (known-answers.ts). */
  answers?: number;
}

/** What typed serving needs of a folded entity: the roles its edges give it, its labels. */
export interface FoldedTypeFacts {
  /** `2r`: a tail of relation r; `2r + 1`: a head of r (types.json's role numbering). */
  roles: number[];
  labels: string[];
}

/** An entity's edges in the base model's ids, and what identifies that edge set. */
export interface FoldInInput {
  edges: FoldInEdge[];
  /** Changes exactly when the usable edges or the labels change. */
  fingerprint: string;
  types: FoldedTypeFacts;
}

/** The part of a model fold-in reads: base ids only (folded entities are no anchors). */
interface BaseVocabulary {
  findEntity(id: string): number | undefined;
  findRelation(name: string): number | undefined;
}

/**
 * The entity's edges usable for fold-in: those of relations the model knows to entities it
 * knows, with their known answers where the version's `graph` is given. None: the entity
 * cannot be folded in (it needs an edge to a known entity, or a retraining). Order-independent:
 * the fingerprint hashes the sorted edges.
 */
export function foldInInput(
  model: BaseVocabulary,
  hood: Neighbourhood,
  graph?: GraphIndex,
): FoldInInput | undefined {
  const edges: FoldInEdge[] = [];
  const keys: string[] = [];
  const roles = new Set<number>();
  for (const edge of hood.edges) {
    const relation = model.findRelation(edge.relation);
    const other = model.findEntity(edge.other);
    if (relation === undefined || other === undefined) continue;
    const known = { relation, other, outgoing: edge.outgoing };
    edges.push(graph ? { ...known, answers: knownAnswers(graph, known) } : known);
    keys.push(`${relation} ${other} ${edge.outgoing ? 1 : 0}`);
    roles.add(2 * relation + (edge.outgoing ? 1 : 0));
  }
  if (edges.length === 0) return undefined;
  const labels = [...hood.labels].sort();
  keys.sort();
  const hash = crypto.createHash('sha1');
  hash.update(keys.join('\n'));
  hash.update('\u0000');
  hash.update(labels.join('\n'));
  return {
    edges,
    fingerprint: hash.digest('hex'),
    types: { roles: [...roles].sort((a, b) => a - b), labels },
  };
}
