import fs from 'node:fs';

/** A (head, relation) pair of the training file: a query the served model can answer. */
export interface Pair {
  entity: string;
  relation: string;
}

const SINGLE =
  'query MissingLinks($entity: String!, $relation: String!) ' +
  '{ missingLinks(entity: $entity, relation: $relation, k: 10) { entity { id } logit } }';
const SINGLE_VERSIONED =
  'query MissingLinks($entity: String!, $relation: String!) ' +
  '{ missingLinks(entity: $entity, relation: $relation, k: 10) { entity { id } logit modelVersion } }';
/** What the fresh protocol's user asks for (issue 56): the calibrated probability and the rank. */
const SINGLE_RANKED =
  'query MissingLinks($entity: String!, $relation: String!) ' +
  '{ missingLinks(entity: $entity, relation: $relation, k: 10) { rank probability } }';
const SINGLE_REASONS =
  'query MissingLinks($entity: String!, $relation: String!) ' +
  '{ missingLinks(entity: $entity, relation: $relation, k: 10) { entity { id } logit ' +
  'reasons { kind similarity rule { text confidence support } edges { head relation tail } } } }';
const BATCH =
  'query MissingLinksBatch($queries: [MissingLinksInput!]!) ' +
  '{ missingLinksBatch(queries: $queries) { entity { id } logit } }';

/** The distinct (head, relation) pairs of a tab-separated triples file. */
export function readPairs(file: string): Pair[] {
  const seen = new Set<string>();
  const pairs: Pair[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [head, relation] = line.split('\t');
    if (!head || !relation) continue;
    const key = `${head}\t${relation}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pairs.push({ entity: head, relation });
  }
  if (pairs.length === 0) throw new Error(`no triples in ${file}`);
  return pairs;
}

/** mulberry32: a small seeded generator, so every run draws the same request sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Request bodies (JSON strings) drawn at random from `pairs`. */
export class Bodies {
  private readonly random: () => number;

  constructor(
    private readonly pairs: Pair[],
    seed = 1,
  ) {
    this.random = seededRandom(seed);
  }

  private pick(): Pair {
    return this.pairs[Math.floor(this.random() * this.pairs.length)] as Pair;
  }

  /** One missingLinks query (variables, as clients send them; k 10). */
  single(withVersion = false): string {
    return JSON.stringify({
      query: withVersion ? SINGLE_VERSIONED : SINGLE,
      variables: this.pick(),
    });
  }

  /** One missingLinks query (k 10) asking for `{ rank probability }`. */
  ranked(): string {
    return JSON.stringify({ query: SINGLE_RANKED, variables: this.pick() });
  }

  /** One missingLinks query (k 10) that asks for every prediction's reasons. */
  singleWithReasons(): string {
    return JSON.stringify({ query: SINGLE_REASONS, variables: this.pick() });
  }

  /** missingLinksBatch of `n` queries (k 10 each). */
  batch(n: number): string {
    const queries = Array.from({ length: n }, () => ({ ...this.pick(), k: 10 }));
    return JSON.stringify({ query: BATCH, variables: { queries } });
  }

  static typename(): string {
    return JSON.stringify({ query: '{ __typename }' });
  }
}
