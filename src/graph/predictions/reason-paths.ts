import neo4j from 'neo4j-driver';
import type { Database } from '../database';

/** A rule to look for between a pair, as parameters: its body's relation types and directions. */
export interface RuleParameter {
  /** The caller's index of the rule (returned with its paths). */
  index: number;
  types: string[];
  /** Per step: true when the edge runs forward along the path (from the step's start). */
  forward: boolean[];
}

export interface ReasonPairQuery {
  /** The edge's head and tail: the path runs from head to tail. */
  head: string;
  tail: string;
  relation: string;
  /** The rules of the relation, best first. */
  rules: RuleParameter[];
  /** The suggested end (head or tail) and whether it is the edge's head. */
  suggested: string;
  suggestedIsHead: boolean;
}

export interface PathEdge {
  head: string;
  relation: string;
  tail: string;
}

export interface ReasonPairAnswer {
  paths: { rule: number; edges: PathEdge[] }[];
  /** Where no rule fired: other ends of the suggested entity's known edges of the relation. */
  similar: string[];
}

/** How far one read may go: hubs cost at most these many rows per step. */
export interface ReasonReadLimits {
  /** Paths per rule and pair. */
  perRule: number;
  /** Paths per pair, over all its rules. */
  perPair: number;
  /** Nodes taken from each expansion step (a hub's first neighbours, not all). */
  fanout: number;
  /** Middle nodes of 3-step paths with more edges than this are not walked through. */
  hub: number;
  /** Known edges read for the fallback, per pair. */
  similar: number;
}

export const REASON_READ_LIMITS: ReasonReadLimits = {
  perRule: 1,
  perPair: 3,
  fanout: 20,
  hub: 1000,
  similar: 100,
};

/**
 * Rule instances for many (head, tail) pairs in one read. Relation types and directions arrive
 * as parameters and are compared with type() and startNode(), never spliced. Bounded for hubs:
 * the tail's last-step neighbours (at most $fanout) are collected first, and the walk from the
 * head must end in them; a 3-step walk takes at most $fanout first nodes, none with more than
 * $hub edges; at most $perRule paths per rule are completed. Paths run through
 * distinct nodes (as the miner counts them). Where a pair has no path, its fallback candidates:
 * the other ends of the suggested entity's edges of the relation.
 */
const REASON_PATHS = `
UNWIND range(0, size($pairs) - 1) AS i
WITH i, $pairs[i] AS p
CALL (p) {
  UNWIND p.rules AS rule
  CALL (p, rule) {
    CALL (p, rule) {
      WITH p, rule WHERE size(rule.types) = 1
      MATCH (x:Entity {id: p.head})-[e1]-(y:Entity {id: p.tail})
      WHERE x <> y AND type(e1) = rule.types[0] AND (startNode(e1) = x) = rule.forward[0]
      RETURN [e1] AS edges
      UNION
      WITH p, rule WHERE size(rule.types) > 1
      MATCH (x:Entity {id: p.head}), (y:Entity {id: p.tail})
      WITH x, y, rule, size(rule.types) - 1 AS last
      WITH x, y, rule, COLLECT {
        MATCH (y)-[e]-(z:Entity)
        WHERE type(e) = rule.types[last] AND (endNode(e) = y) = rule.forward[last]
          AND z <> x AND z <> y
        RETURN z LIMIT $fanout
      } AS ends
      CALL (x, y, rule, ends) {
        WITH x, y, rule, ends WHERE size(rule.types) = 2
        MATCH (x)-[e1]-(z1:Entity)
        WHERE type(e1) = rule.types[0] AND (startNode(e1) = x) = rule.forward[0] AND z1 IN ends
        WITH y, rule, e1, z1 LIMIT $perRule
        MATCH (z1)-[e2]-(y)
        WHERE type(e2) = rule.types[1] AND (startNode(e2) = z1) = rule.forward[1]
        RETURN [e1, e2] AS edges
        UNION
        WITH x, y, rule, ends WHERE size(rule.types) = 3
        CALL (x, y, rule) {
          MATCH (x)-[e1]-(z1:Entity)
          WHERE type(e1) = rule.types[0] AND (startNode(e1) = x) = rule.forward[0]
            AND z1 <> x AND z1 <> y AND COUNT { (z1)--() } <= $hub
          RETURN e1, z1 LIMIT $fanout
        }
        MATCH (z1)-[e2]-(z2:Entity)
        WHERE type(e2) = rule.types[1] AND (startNode(e2) = z1) = rule.forward[1]
          AND z2 IN ends AND z2 <> x AND z2 <> z1
        WITH y, rule, e1, e2, z2 LIMIT $perRule
        MATCH (z2)-[e3]-(y)
        WHERE type(e3) = rule.types[2] AND (startNode(e3) = z2) = rule.forward[2]
        RETURN [e1, e2, e3] AS edges
      }
      RETURN edges
    }
    RETURN edges LIMIT $perRule
  }
  WITH rule, edges LIMIT $perPair
  RETURN collect({
    rule: rule.index,
    edges: [e IN edges | {head: startNode(e).id, relation: type(e), tail: endNode(e).id}]
  }) AS paths
}
RETURN i, paths,
  CASE WHEN size(paths) > 0 THEN [] ELSE COLLECT {
    MATCH (s:Entity {id: p.suggested})-[e]-(o:Entity)
    WHERE type(e) = p.relation AND (startNode(e) = s) = p.suggestedIsHead AND o <> s
    RETURN o.id LIMIT $similar
  } END AS similar`;

/** One read for every pair of a request (row i answers pairs[i]). */
export async function reasonPathsBatch(
  db: Database,
  pairs: readonly ReasonPairQuery[],
  limits: ReasonReadLimits = REASON_READ_LIMITS,
): Promise<ReasonPairAnswer[]> {
  if (pairs.length === 0) return [];
  const result = await db.readQuery(REASON_PATHS, {
    pairs: pairs.map((pair) => ({ ...pair })),
    perRule: neo4j.int(limits.perRule),
    perPair: neo4j.int(limits.perPair),
    fanout: neo4j.int(limits.fanout),
    hub: neo4j.int(limits.hub),
    similar: neo4j.int(limits.similar),
  });
  const answers: ReasonPairAnswer[] = pairs.map(() => ({ paths: [], similar: [] }));
  for (const record of result.records) {
    answers[Number(record.get('i'))] = {
      paths: (record.get('paths') as { rule: unknown; edges: PathEdge[] }[]).map((path) => ({
        rule: Number(path.rule),
        edges: path.edges,
      })),
      similar: record.get('similar') as string[],
    };
  }
  return answers;
}
