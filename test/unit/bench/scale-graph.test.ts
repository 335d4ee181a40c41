import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EntityLayout } from '../../../bench/scale/entity-layout';
import {
  generateScaleGraph,
  PATTERN_RATES,
  RELATIONS,
  type ScaleGraphOptions,
  type SplitName,
} from '../../../bench/scale/scale-graph';
import { writeScaleGraph } from '../../../bench/scale/write-scale-graph';
import { LabelsParser } from '../../../src/ingest/parsers/labels-parser';
import { TsvParser } from '../../../src/ingest/parsers/tsv-parser';

type Row = { split: SplitName; h: number; r: string; t: number };

const OPTIONS: ScaleGraphOptions = { entities: 3000, edges: 30_000, seed: 7 };

function generate(options: ScaleGraphOptions = OPTIONS): Row[] {
  const rows: Row[] = [];
  generateScaleGraph(options, (split, h, r, t) =>
    rows.push({ split, h, r: RELATIONS[r] as string, t }),
  );
  return rows;
}

const key = (h: number, r: string, t: number) => `${h}\u0000${r}\u0000${t}`;
const digest = (rows: Row[]) =>
  crypto
    .createHash('sha256')
    .update(rows.map((x) => `${x.split} ${key(x.h, x.r, x.t)}`).join('\n'))
    .digest('hex');

describe('the scale graph generator', () => {
  const rows = generate();
  const layout = new EntityLayout(OPTIONS.entities);
  const all = new Set(rows.map((x) => key(x.h, x.r, x.t)));
  const of = (relation: string) => rows.filter((x) => x.r === relation);
  const has = (h: number, r: string, t: number) => all.has(key(h, r, t));

  it('is deterministic for a seed and differs across seeds', () => {
    expect(digest(generate())).toBe(digest(rows));
    expect(digest(generate({ ...OPTIONS, seed: 8 }))).not.toBe(digest(rows));
  });

  it('gives exactly the edges asked for, none repeated, every entity with an edge', () => {
    expect(rows).toHaveLength(OPTIONS.edges);
    expect(all.size).toBe(OPTIONS.edges);
    const touched = new Set(rows.flatMap((x) => [x.h, x.t]));
    expect(touched.size).toBe(OPTIONS.entities);
    expect(rows.every((x) => x.h !== x.t)).toBe(true);
  });

  it('holds out about the asked shares, only of triples whose ends and relation train has', () => {
    const count = (split: SplitName) => rows.filter((x) => x.split === split).length;
    expect(count('valid') / rows.length).toBeGreaterThan(0.03);
    expect(count('test') / rows.length).toBeGreaterThan(0.03);
    const trainEntities = new Set<number>();
    const trainRelations = new Set<string>();
    for (const x of rows.filter((row) => row.split === 'train')) {
      trainEntities.add(x.h).add(x.t);
      trainRelations.add(x.r);
    }
    const unseen = rows.filter(
      (x) =>
        x.split !== 'train' &&
        !(trainEntities.has(x.h) && trainEntities.has(x.t) && trainRelations.has(x.r)),
    );
    expect(unseen).toEqual([]);
    const none = generate({ ...OPTIONS, validFraction: 0, testFraction: 0 });
    expect(none.every((x) => x.split === 'train')).toBe(true);
    // The graph itself does not depend on the split.
    expect(new Set(none.map((x) => key(x.h, x.r, x.t)))).toEqual(all);
  });

  it('has heavy-tailed degrees: a few hubs, most entities with a handful of edges', () => {
    const degree = new Map<number, number>();
    for (const x of rows) for (const e of [x.h, x.t]) degree.set(e, (degree.get(e) ?? 0) + 1);
    const sorted = [...degree.values()].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    const max = sorted[sorted.length - 1] as number;
    expect(max).toBeGreaterThan(30 * median);
    // The top 1% of entities hold far more than 1% of the edge ends.
    const top = sorted.slice(-Math.ceil(sorted.length / 100)).reduce((a, b) => a + b, 0);
    expect(top / (2 * rows.length)).toBeGreaterThan(0.15);
    // A power law, not a few outliers: the degree's complementary CDF falls about as a power.
    const share = (k: number) => sorted.filter((d) => d >= k).length / sorted.length;
    const slope = Math.log(share(8 * median) / share(2 * median)) / Math.log(4);
    expect(slope).toBeGreaterThan(-2.5);
    expect(slope).toBeLessThan(-0.5);
  });

  it('types every entity and keeps each relation within its domain and range', () => {
    const domain: Record<string, [string[], string[]]> = {
      located_in: [
        ['region', 'city'],
        ['country', 'region'],
      ],
      broader: [['topic'], ['topic']],
      headquartered_in: [['organization'], ['city']],
      produces: [['organization'], ['product']],
      works_for: [['person'], ['organization']],
      employs: [['organization'], ['person']],
      works_in: [['person'], ['city']],
      knows: [['person'], ['person']],
      interested_in: [['person'], ['topic']],
      has_topic: [['product'], ['topic']],
    };
    const outside = rows.filter((x) => {
      const [heads, tails] = domain[x.r] as [string[], string[]];
      return !heads.includes(layout.kindOf(x.h)) || !tails.includes(layout.kindOf(x.t));
    });
    expect(outside).toEqual([]);
    expect(layout.labels(layout.entity('city', 0))).toEqual(['Place', 'City']);
    expect(layout.id(layout.entity('person', 12))).toBe('person/12');
  });

  it('has hierarchies: one parent each, one level up (places) or earlier (topics)', () => {
    const parents = new Map<number, number[]>();
    for (const x of [...of('located_in'), ...of('broader')])
      parents.set(x.h, [...(parents.get(x.h) ?? []), x.t]);
    const levels = (kind: 'city' | 'region') =>
      new Set(
        Array.from({ length: layout.count(kind) }, (_, k) =>
          (parents.get(layout.entity(kind, k)) ?? []).map((p) => layout.kindOf(p)).join(','),
        ),
      );
    expect(levels('city')).toEqual(new Set(['region']));
    expect(levels('region')).toEqual(new Set(['country']));
    const topicParents = of('broader');
    expect(topicParents.length).toBeGreaterThan(0.9 * layout.count('topic'));
    expect(topicParents.filter((x) => x.t >= x.h)).toEqual([]); // a forest: no cycles
    expect(new Set(topicParents.map((x) => x.h)).size).toBe(topicParents.length);
  });

  it('has one-to-many relations: each product made by exactly one organisation', () => {
    const makers = new Map<number, number>();
    for (const x of of('produces')) makers.set(x.t, (makers.get(x.t) ?? 0) + 1);
    expect(makers.size).toBe(layout.count('product'));
    expect([...makers.values()].every((n) => n === 1)).toBe(true);
    const perMaker = new Map<number, number>();
    for (const x of of('produces')) perMaker.set(x.h, (perMaker.get(x.h) ?? 0) + 1);
    expect(Math.max(...perMaker.values())).toBeGreaterThan(20);
    const hq = new Map<number, number>();
    for (const x of of('headquartered_in')) hq.set(x.h, x.t);
    expect(hq.size).toBe(layout.count('organization'));
  });

  it('has a symmetric relation: (a knows b) mostly implies (b knows a)', () => {
    const knows = of('knows');
    const mutual = knows.filter((x) => has(x.t, 'knows', x.h)).length / knows.length;
    expect(mutual).toBeGreaterThan(PATTERN_RATES.symmetric - 0.05);
    expect(mutual).toBeLessThan(1);
  });

  it('has an inverse pair: works_for mostly implies employs, employs always has its works_for', () => {
    const worksFor = of('works_for');
    const inverse = worksFor.filter((x) => has(x.t, 'employs', x.h)).length / worksFor.length;
    expect(inverse).toBeGreaterThan(PATTERN_RATES.inverse - 0.05);
    expect(of('employs').every((x) => has(x.t, 'works_for', x.h))).toBe(true);
    // Every person works somewhere.
    expect(new Set(worksFor.map((x) => x.h)).size).toBe(layout.count('person'));
  });

  it('has a composition: works_for ∘ headquartered_in ⇒ works_in, mostly', () => {
    const hq = new Map(of('headquartered_in').map((x) => [x.h, x.t]));
    const worksFor = of('works_for');
    const implied = worksFor.filter((x) => has(x.h, 'works_in', hq.get(x.t) as number));
    expect(implied.length / worksFor.length).toBeGreaterThan(PATTERN_RATES.composition - 0.05);
    // Nothing else makes works_in: each has a path through an employer's headquarters.
    const reached = new Set(worksFor.map((x) => key(x.h, 'works_in', hq.get(x.t) as number)));
    expect(of('works_in').every((x) => reached.has(key(x.h, x.r, x.t)))).toBe(true);
  });

  it('refuses sizes it cannot honour', () => {
    expect(() => generate({ entities: 50, edges: 500, seed: 1 })).toThrow(/at least 100/);
    expect(() => generate({ entities: 1000, edges: 999, seed: 1 })).toThrow(/at least entities/);
    expect(() => generate({ entities: 100, edges: 20_000, seed: 1 })).toThrow(/could not place/);
  });

  it('writes the splits and a label file that kgc ingest reads without a bad line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-scale-'));
    try {
      const files = writeScaleGraph(dir, { entities: 500, edges: 4000, seed: 3 });
      const triples = new TsvParser();
      const seen = new Set<string>();
      for (const split of ['train', 'valid', 'test'] as const) {
        const lines = fs.readFileSync(files.splits[split], 'utf8').split('\n').slice(0, -1);
        expect(lines).toHaveLength(files.triples[split]);
        for (const line of lines) {
          expect(triples.parse(line).kind).toBe('edge');
          seen.add(line);
        }
      }
      expect(seen.size).toBe(4000);
      const labels = fs.readFileSync(files.labels, 'utf8').split('\n').slice(0, -1);
      expect(labels).toHaveLength(500);
      const parser = new LabelsParser();
      expect(labels.map((line) => parser.parse(line).kind)).toEqual(labels.map(() => 'labels'));
      expect(labels).toContain('city/0\tPlace;City');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
