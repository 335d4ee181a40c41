import { REASON_READ_LIMITS, reasonEdgesPresent } from '../graph';
import type { Database, PathEdge, ReasonPairAnswer } from '../graph';
import { rulePaths, stepNeighbours } from '../model';
import type { GraphIndex, PathSearchLimits, ServingModel } from '../model';
import type { Reason } from '../schema/reason.type';
import { MAX_REASONS, pathReasons } from './reason-items';
import type { Asked } from './reason-items';
import { rankSimilar, similarEdge, similarReason } from './similar-reasons';

/**
 * Index entries one rule's search may walk per pair (each a binary-searched edge test): a hub
 * pair costs at most this, well under a millisecond.
 */
const SEARCH_BUDGET = 5_000;

/** A path of node ids, walked by `steps`, as the graph's edges (each in its own direction). */
function pathEdges(model: ServingModel, nodes: number[], steps: number[]): PathEdge[] {
  const { entities, relations } = model.scorer;
  return steps.map((step, i) => {
    const [from, to] = [entities[nodes[i] as number], entities[nodes[i + 1] as number]];
    const relation = relations[step >> 1] as string;
    return step & 1
      ? { head: to as string, relation, tail: from as string }
      : { head: from as string, relation, tail: to as string };
  });
}

/**
 * Candidate reasons of one pair in the version's graph: rule instances from head to tail (rules
 * in order, at most perRule each and perPair in all), and the other ends of the suggested
 * entity's edges of the relation (at most `similar`).
 */
function searchPair(item: Asked, graph: GraphIndex): ReasonPairAnswer {
  const { scorer } = item.model;
  const { pair } = item;
  const limits = REASON_READ_LIMITS;
  const x = scorer.findEntity(pair.head);
  const y = scorer.findEntity(pair.tail);
  const paths: ReasonPairAnswer['paths'] = [];
  for (const [index, rule] of item.rules.entries()) {
    if (x === undefined || y === undefined || paths.length >= limits.perPair) break;
    const steps = rule.body.map((atom) => {
      const r = scorer.findRelation(atom.relation);
      return r === undefined ? -1 : 2 * r + (atom.inverse ? 1 : 0);
    });
    if (steps.includes(-1)) continue;
    const search: PathSearchLimits = {
      perRule: Math.min(limits.perRule, limits.perPair - paths.length),
      hub: limits.hub,
      budget: SEARCH_BUDGET,
    };
    for (const nodes of rulePaths(graph, x, y, steps, search))
      paths.push({ rule: index, edges: pathEdges(item.model, nodes, steps) });
  }
  const suggested = scorer.findEntity(pair.suggested);
  const r = scorer.findRelation(pair.relation);
  const similar =
    suggested === undefined || r === undefined
      ? []
      : stepNeighbours(graph, suggested, 2 * r + (pair.suggestedIsHead ? 0 : 1), limits.similar)
          // The query entity's own edge: a fact it would be its own reason for.
          .map((other) => scorer.entities[other] as string)
          .filter((other) => other !== item.query.entity);
  return { paths, similar };
}

/** Edges to confirm, each once; `slot(edge)` is its position in `edges`. */
class EdgeList {
  readonly edges: PathEdge[] = [];
  private readonly slots = new Map<string, number>();

  slot(edge: PathEdge): number {
    const key = JSON.stringify([edge.head, edge.relation, edge.tail]);
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.edges.push(edge) - 1;
      this.slots.set(key, slot);
    }
    return slot;
  }
}

/**
 * Reasons of predictions whose model carries its version's graph: candidates found in memory,
 * then every edge they rest on confirmed against Neo4j in one read (the graph may have lost
 * edges since training; a path with a lost edge is dropped). Edges added since training are
 * not looked for: they count from the next version on.
 */
export async function reasonsInMemory(db: Database, items: readonly Asked[]): Promise<Reason[][]> {
  const candidates = items.map((item) => searchPair(item, item.model.graph as GraphIndex));
  const ranked = rankSimilar(
    items,
    candidates.map((c) => c.similar),
  );
  const list = new EdgeList();
  const nearest = items.map((item, i) => {
    for (const path of candidates[i]?.paths ?? []) path.edges.forEach((edge) => list.slot(edge));
    const top = (ranked.get(i) ?? []).slice(0, MAX_REASONS);
    top.forEach((similar) => list.slot(similarEdge(item, similar.id)));
    return top;
  });
  const present = await reasonEdgesPresent(db, list.edges);
  const holds = (edge: PathEdge) => present[list.slot(edge)] === true;
  return items.map((item, i) => {
    const paths = (candidates[i]?.paths ?? []).filter((path) => path.edges.every(holds));
    const reasons = pathReasons(item, { paths, similar: [] });
    if (reasons.length > 0) return reasons;
    return (nearest[i] ?? [])
      .filter((similar) => holds(similarEdge(item, similar.id)))
      .map((similar) => similarReason(item, similar));
  });
}
