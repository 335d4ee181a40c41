import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from './seeded-random';

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

/**
 * A small world with structure a model can learn: people live in cities, cities lie in
 * countries, people are citizens of their city's country (mostly), work for companies based in
 * their city, and know people of their own city. Some facts are left out on purpose: those are
 * the "missing links" the demo asks for.
 */
export function demoTriples(people = 300, seed = 42): [string, string, string][] {
  const next = seededRandom(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const id = (kind: string, i: number) => `${DEMO_PREFIX}${kind}_${String(i).padStart(3, '0')}`;
  const countries = 6;
  const cities = 24;
  const companies = 48;
  const triples: [string, string, string][] = [];
  const cityOf = (c: number) => c % countries;
  for (let c = 0; c < cities; c++)
    triples.push([id('city', c), 'located_in', id('country', cityOf(c))]);
  for (let k = 0; k < companies; k++)
    triples.push([id('company', k), 'based_in', id('city', k % cities)]);
  const home: number[] = [];
  for (let p = 0; p < people; p++) {
    const city = pick(cities);
    home.push(city);
    const person = id('person', p);
    triples.push([person, 'lives_in', id('city', city)]);
    // One citizenship in five is left out: the model should fill it in from lives_in.
    if (next() < 0.8)
      triples.push([
        person,
        'citizen_of',
        id('country', next() < 0.95 ? cityOf(city) : pick(countries)),
      ]);
    triples.push([person, 'works_for', id('company', city + cities * pick(2))]);
  }
  for (let p = 0; p < people; p++) {
    for (let q = 0; q < 3; q++) {
      const friend = pick(people);
      if (friend !== p && home[friend] === home[p])
        triples.push([id('person', p), 'knows', id('person', friend)]);
    }
  }
  return triples;
}

/** Writes the demo graph as TSV (the format `kgc ingest` reads) and returns the path. */
export function writeDemoGraph(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'demo-graph.tsv');
  fs.writeFileSync(
    file,
    demoTriples()
      .map((t) => t.join('\t'))
      .join('\n') + '\n',
  );
  return file;
}

/** The first person whose citizenship the demo graph leaves out: the sample question. */
export function demoSamplePerson(triples = demoTriples()): string {
  const citizens = new Set(triples.filter(([, r]) => r === 'citizen_of').map(([h]) => h));
  const person = triples.find(([h, r]) => r === 'lives_in' && !citizens.has(h));
  return person ? person[0] : `${DEMO_PREFIX}person_000`;
}
