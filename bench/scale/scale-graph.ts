import { TripleSet } from '../../src/ingest/bulk';
import { seededRandom } from '../../src/seeded-random';
import { EntityLayout } from './entity-layout';
import { ZipfSampler } from './zipf';

/** The relations, by id. Each follows one of the patterns real graphs have (see generateScaleGraph). */
export const RELATIONS = [
  'located_in',
  'broader',
  'headquartered_in',
  'produces',
  'works_for',
  'employs',
  'works_in',
  'knows',
  'interested_in',
  'has_topic',
] as const;
export type RelationName = (typeof RELATIONS)[number];

/** How often an implied edge is present: "mostly", as in real graphs, not always. */
export const PATTERN_RATES = {
  /** (a knows b) ⇒ (b knows a). */
  symmetric: 0.9,
  /** (p works_for o) ⇒ (o employs p). */
  inverse: 0.9,
  /** (p works_for o) ∧ (o headquartered_in c) ⇒ (p works_in c). */
  composition: 0.8,
} as const;

/** Zipf exponents: entities as the source of edges, and as popular targets (degree tails ~2.4 and ~2). */
const SOURCE_SKEW = 0.7;
const TARGET_SKEW = 1.0;
/** The edges left after the structure, by kind of event. */
const FILL = { knows: 0.4, interestedIn: 0.3, hasTopic: 0.15 } as const;
/** Draws in a row that add nothing before the graph is declared full (too many edges asked). */
const MAX_STALLED_DRAWS = 200_000;
/** Share of topics that are roots of the `broader` forest. */
const TOPIC_ROOTS = 0.02;

export type SplitName = 'train' | 'valid' | 'test';

export interface ScaleGraphOptions {
  entities: number;
  /** Distinct triples over all three splits. */
  edges: number;
  seed: number;
  /** Shares of the edges held out (default 0.05 each); see `splitOf`. */
  validFraction?: number;
  testFraction?: number;
}

export interface ScaleGraphCounts {
  triples: Record<SplitName, number>;
  /** Entities that have at least one edge. */
  entitiesWithEdges: number;
}

/** Receives each triple once, as dense ids: `layout.id(head)`, `RELATIONS[relation]`. */
export type TripleSink = (split: SplitName, head: number, relation: number, tail: number) => void;

const R = Object.fromEntries(RELATIONS.map((name, i) => [name, i])) as Record<RelationName, number>;

/**
 * A seeded, typed graph of exactly `edges` distinct triples with the patterns of real knowledge
 * graphs, streamed to `sink` (nothing is kept but the dedupe set):
 *
 * - hierarchies: every region `located_in` one country and every city in one region (a three-level
 *   tree); every topic but the roots has one `broader` topic earlier in the list (a forest);
 * - one-to-many: every product is made by exactly one organisation (`produces`), every
 *   organisation is `headquartered_in` one city;
 * - inverse pair: `works_for` and `employs`; composition: `works_for` ∘ `headquartered_in` ⇒
 *   `works_in` (rates in PATTERN_RATES); every person works for at least one organisation;
 * - symmetric: `knows` between people;
 * - many-to-many: `interested_in` (person → topic), `has_topic` (product → topic).
 *
 * Sources and targets are drawn from Zipf distributions, so degrees are heavy-tailed: a few
 * cities, organisations, topics and people hold most edges. The same options give the same
 * triples in the same order.
 */
export function generateScaleGraph(options: ScaleGraphOptions, sink: TripleSink): ScaleGraphCounts {
  const { edges, seed } = options;
  if (!Number.isInteger(edges) || edges < options.entities) {
    throw new RangeError(
      `edges (${edges}) must be an integer of at least entities (${options.entities})`,
    );
  }
  const layout = new EntityLayout(options.entities);
  const random = seededRandom(seed);
  const splitOf = splitter(layout.entities, options, seededRandom(seed ^ 0x5bd1e995));
  const seen = new TripleSet(edges);
  const touched = new Uint8Array(layout.entities);
  const counts: ScaleGraphCounts = {
    triples: { train: 0, valid: 0, test: 0 },
    entitiesWithEdges: 0,
  };
  let emitted = 0;
  const add = (head: number, relation: number, tail: number): boolean => {
    if (emitted >= edges || head === tail || !seen.add(head, relation, tail)) return false;
    emitted += 1;
    for (const end of [head, tail]) {
      if (touched[end] === 0) {
        touched[end] = 1;
        counts.entitiesWithEdges += 1;
      }
    }
    const split = splitOf(head, relation, tail);
    counts.triples[split] += 1;
    sink(split, head, relation, tail);
    return true;
  };

  const first = (kind: Parameters<EntityLayout['entity']>[0]) => layout.entity(kind, 0);
  const [country, region, city, topic, org, product, person] = (
    ['country', 'region', 'city', 'topic', 'organization', 'product', 'person'] as const
  ).map(first) as [number, number, number, number, number, number, number];
  const n = {
    country: layout.count('country'),
    region: layout.count('region'),
    city: layout.count('city'),
    topic: layout.count('topic'),
    org: layout.count('organization'),
    product: layout.count('product'),
    person: layout.count('person'),
  };
  const popular = (count: number) => new ZipfSampler(count, TARGET_SKEW);
  const active = (count: number) => new ZipfSampler(count, SOURCE_SKEW);
  const pick = { country: popular(n.country), region: popular(n.region), city: popular(n.city) };
  const pickTopic = popular(n.topic);
  const pickOrg = popular(n.org);
  const pickPerson = popular(n.person);
  const activePerson = active(n.person);
  const activeProduct = active(n.product);

  // Hierarchy: the first parents each get one child, so every place has an edge.
  for (let k = 0; k < n.region; k++) {
    add(region + k, R.located_in, country + (k < n.country ? k : pick.country.rank(random())));
  }
  for (let k = 0; k < n.city; k++) {
    add(city + k, R.located_in, region + (k < n.region ? k : pick.region.rank(random())));
  }
  const roots = Math.max(1, Math.round(n.topic * TOPIC_ROOTS));
  for (let k = roots; k < n.topic; k++) {
    // An earlier topic, most often an early (broad) one.
    const parent = k < 2 * roots ? k - roots : Math.floor(k * random() ** 2);
    add(topic + k, R.broader, topic + parent);
  }
  const headquarters = new Int32Array(n.org);
  for (let k = 0; k < n.org; k++) {
    headquarters[k] = city + pick.city.rank(random());
    add(org + k, R.headquartered_in, headquarters[k] as number);
  }
  for (let k = 0; k < n.product; k++) {
    add(org + pickOrg.rank(random()), R.produces, product + k);
  }
  const employ = (p: number, o: number) => {
    if (!add(person + p, R.works_for, org + o)) return;
    if (random() < PATTERN_RATES.inverse) add(org + o, R.employs, person + p);
    if (random() < PATTERN_RATES.composition) {
      add(person + p, R.works_in, headquarters[o] as number);
    }
  };
  for (let k = 0; k < n.person; k++) employ(k, pickOrg.rank(random()));

  // The rest of the budget, event by event; a repeated draw adds nothing and is drawn again.
  let stalled = 0;
  while (emitted < edges) {
    if (++stalled > MAX_STALLED_DRAWS) {
      throw new RangeError(
        `could not place ${edges} distinct edges among ${layout.entities} entities: ask for fewer edges or more entities`,
      );
    }
    const before = emitted;
    const u = random();
    if (u < FILL.knows) {
      const a = person + activePerson.rank(random());
      const b = person + pickPerson.rank(random());
      if (add(a, R.knows, b) && random() < PATTERN_RATES.symmetric) add(b, R.knows, a);
    } else if (u < FILL.knows + FILL.interestedIn) {
      add(person + activePerson.rank(random()), R.interested_in, topic + pickTopic.rank(random()));
    } else if (u < FILL.knows + FILL.interestedIn + FILL.hasTopic) {
      add(product + activeProduct.rank(random()), R.has_topic, topic + pickTopic.rank(random()));
    } else {
      employ(activePerson.rank(random()), pickOrg.rank(random()));
    }
    if (emitted > before) stalled = 0;
  }
  return counts;
}

/**
 * Holds out a triple (valid or test, in the asked shares) only when train already has its head,
 * tail and relation, as the export's split does: every held-out triple can be ranked.
 */
function splitter(
  entities: number,
  options: ScaleGraphOptions,
  random: () => number,
): (head: number, relation: number, tail: number) => SplitName {
  const valid = options.validFraction ?? 0.05;
  const heldOut = valid + (options.testFraction ?? 0.05);
  const inTrain = new Uint8Array(entities);
  const relationInTrain = new Uint8Array(RELATIONS.length);
  return (head, relation, tail) => {
    const u = random();
    if (u < heldOut && inTrain[head] && inTrain[tail] && relationInTrain[relation]) {
      return u < valid ? 'valid' : 'test';
    }
    inTrain[head] = 1;
    inTrain[tail] = 1;
    relationInTrain[relation] = 1;
    return 'train';
  };
}
