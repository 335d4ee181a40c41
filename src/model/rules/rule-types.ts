/** One step of a rule body: an edge of `relation`, walked forward (head to tail) or backward. */
export interface RuleAtom {
  relation: string;
  inverse: boolean;
}

/**
 * A path rule `b1 ∘ b2 (∘ b3) ⇒ relation`: a path x -b1- z1 -b2- ... -bn- y of distinct nodes
 * predicts the edge (x, relation, y). `support`: edges of the relation that such a path
 * explains (AMIE's support); `confidence`: the share of body paths' (x, y) pairs that are edges
 * of the relation (standard confidence); `headCoverage`: support / edges of the relation.
 */
export interface Rule {
  relation: string;
  body: RuleAtom[];
  support: number;
  confidence: number;
  headCoverage: number;
}

/** How rules were mined (stored with them, so a version says what its reasons rest on). */
export interface MiningSettings {
  /** Longest rule body (1 to 3). */
  maxLength: number;
  /** Edges of a relation sampled to find candidate bodies (all when it has fewer). */
  factsPerRelation: number;
  /** Candidate bodies per relation whose confidence is measured (most frequent first). */
  candidatesPerRelation: number;
  /** Body start nodes sampled per candidate to measure its confidence (all when fewer). */
  bodySamples: number;
  /** Path steps a single search may take before it stops (hub nodes stay cheap). */
  stepBudget: number;
  /** Path steps one candidate's confidence may take over all its sampled starts. */
  ruleBudget: number;
  minSupport: number;
  minConfidence: number;
  /** Rules kept per relation, best confidence first. */
  rulesPerRelation: number;
  seed: number;
}

export const DEFAULT_MINING: MiningSettings = {
  maxLength: 3,
  factsPerRelation: 64,
  candidatesPerRelation: 16,
  bodySamples: 200,
  stepBudget: 5_000,
  ruleBudget: 20_000,
  minSupport: 2,
  minConfidence: 0.01,
  rulesPerRelation: 10,
  seed: 7,
};

/** A version's rules: per relation name, best first. */
export interface RuleSet {
  format: 1;
  settings: MiningSettings;
  /** Wall-clock seconds the mining took. */
  seconds: number;
  rules: Record<string, Rule[]>;
}
