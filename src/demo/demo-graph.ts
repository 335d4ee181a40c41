import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../seeded-random';

/** Every demo id starts with this, so the demo's data is easy to find and remove. */
export const DEMO_PREFIX = 'demo:';

export const DEMO_RELATIONS = [
  'lives_in',
  'located_in',
  'citizen_of',
  'works_for',
  'based_in',
  'knows',
];

type Triple = [string, string, string];

/** The demo world: the edges the graph gets, and the true edges held out of it. */
export interface DemoWorld {
  graph: Triple[];
  /**
   * Citizenships left out of the graph that the rest of it implies (the person lives in a city
   * of that country): the missing links a model should find.
   */
  heldOut: Triple[];
}

/**
 * A small world with structure a model can learn: people live in cities, cities lie in
 * countries, people are citizens of their city's country (mostly), work for companies based in
 * their city, and know people of their own city. One citizenship in five is held out of the
 * graph; those derivable from lives_in are recorded, so the demo can count how many the model
 * recovers.
 */
export function demoWorld(people = 300, seed = 42): DemoWorld {
  const next = seededRandom(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const id = (kind: string, i: number) => `${DEMO_PREFIX}${kind}_${String(i).padStart(3, '0')}`;
  const countries = 6;
  const cities = 24;
  const companies = 48;
  const graph: Triple[] = [];
  const heldOut: Triple[] = [];
  const cityOf = (c: number) => c % countries;
  for (let c = 0; c < cities; c++)
    graph.push([id('city', c), 'located_in', id('country', cityOf(c))]);
  for (let k = 0; k < companies; k++)
    graph.push([id('company', k), 'based_in', id('city', k % cities)]);
  const home: number[] = [];
  for (let p = 0; p < people; p++) {
    const city = pick(cities);
    home.push(city);
    const person = id('person', p);
    graph.push([person, 'lives_in', id('city', city)]);
    const kept = next() < 0.8;
    const derivable = next() < 0.95;
    const citizenship: Triple = [
      person,
      'citizen_of',
      id('country', derivable ? cityOf(city) : pick(countries)),
    ];
    if (kept) graph.push(citizenship);
    else if (derivable) heldOut.push(citizenship);
    graph.push([person, 'works_for', id('company', city + cities * pick(2))]);
  }
  for (let p = 0; p < people; p++) {
    for (let q = 0; q < 3; q++) {
      const friend = pick(people);
      if (friend !== p && home[friend] === home[p])
        graph.push([id('person', p), 'knows', id('person', friend)]);
    }
  }
  return { graph, heldOut };
}

/** Writes the demo graph as TSV (the format `kgc ingest` reads) and returns the path. */
export function writeDemoGraph(dir: string, world: DemoWorld = demoWorld()): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'demo-graph.tsv');
  fs.writeFileSync(file, world.graph.map((t) => t.join('\t')).join('\n') + '\n');
  return file;
}

/** Each demo entity's kind, from its id (`demo:person_007` is a Person). */
const DEMO_LABELS: Record<string, string> = {
  person: 'Person',
  city: 'City',
  country: 'Country',
  company: 'Company',
};

/**
 * Writes the demo entities' labels (`id<TAB>Label`, the format `kgc ingest --labels` reads) and
 * returns the path: with them each version learns that citizen_of points to a Country.
 */
export function writeDemoLabels(dir: string, world: DemoWorld = demoWorld()): string {
  fs.mkdirSync(dir, { recursive: true });
  const ids = new Set(world.graph.flatMap(([h, , t]) => [h, t]));
  const lines = [...ids].sort().map((id) => {
    const kind = id.slice(DEMO_PREFIX.length).replace(/_\d+$/, '');
    return `${id}\t${DEMO_LABELS[kind] ?? 'Thing'}`;
  });
  const file = path.join(dir, 'demo-labels.tsv');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The first person whose citizenship is held out: the sample question. */
export function demoSamplePerson(world: DemoWorld = demoWorld()): string {
  return world.heldOut[0]?.[0] ?? `${DEMO_PREFIX}person_000`;
}
