import fs from 'node:fs';
import path from 'node:path';
import { Database, relationCounts } from '../../src/graph';
import { exportDenseGraph } from '../../src/export';
import { loadServingModel, readSuggestionsFile, servingProbability } from '../../src/model';
import type { SuggestionsFile } from '../../src/model';
import { suggestVersion } from '../../src/jobs/suggest-version';
import { combinedLogit } from '../../src/model/rules/served-combiner';
import { runCli } from '../support/cli';
import { firstVersion } from '../support/lifecycle';
import { testDatabase, testTarget } from '../support/test-database';

jest.setTimeout(240_000);

/** Minimal RFC 4180 reader for the test: quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  const re = /("([^"]|"")*"|[^,\r\n]*)(,|\r\n)/g;
  let row: string[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const raw = m[1] as string;
    row.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (m[3] === '\r\n') {
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

describe('suggestions across the graph: after promotion, kgc suggest, kgc suggestions export', () => {
  let db: Database;
  let fixture: Awaited<ReturnType<typeof firstVersion>>;
  let env: Record<string, string>;
  let dir: string;
  let version: string;
  const out = (name: string) => path.join(fixture.root, name);

  beforeAll(async () => {
    db = testDatabase();
    fixture = await firstVersion(db);
    version = fixture.first.version as string;
    dir = fixture.store.dir(version);
    const target = testTarget();
    env = {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_MODEL_STORE: fixture.root,
      KGC_REGISTRY_SCOPE: fixture.scope,
    };
  });
  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (:Entity)-[s:KGC_SUGGESTED]->(:Entity) WHERE s.modelVersion = $v DELETE s', {
        v: version,
      }),
    );
    await db.close();
  });

  it('the retrain job wrote suggestions.bin with the promoted version: no known edge, calibrated, best first', async () => {
    expect(fixture.first.promoted).toBe(true);
    const file = readSuggestionsFile(dir) as SuggestionsFile;
    expect(file.version).toBe(version);
    const model = await loadServingModel(dir, version);
    const relations = model.scorer.relations;
    expect(file.relations.map((r) => `${r.relation}/${r.direction}`).sort()).toEqual(
      relations.flatMap((r) => [`${r}/head`, `${r}/tail`]).sort(),
    );
    const known = new Set(fixture.graph.triples.map((t) => t.join('\u0000')));
    for (const entry of file.relations) {
      expect(entry.rows.length).toBeGreaterThan(0);
      expect(entry.rows.length).toBeLessThanOrEqual(1000);
      const r = model.scorer.relation(entry.relation);
      for (let i = 0; i < entry.rows.length; i++) {
        const [h, t, logit, probability] = entry.rows[i]!;
        const key = [model.scorer.entities[h], entry.relation, model.scorer.entities[t]].join(
          '\u0000',
        );
        expect(known.has(key)).toBe(false);
        expect(h).not.toBe(t);
        expect(probability).toBeCloseTo(servingProbability(model, r, entry.direction, logit), 6);
        if (i > 0) expect(entry.rows[i - 1]![3]).toBeGreaterThanOrEqual(probability);
      }
      // The stored logit is the served one of that edge, asked in that direction: the model's
      // score plus the rules' term where the version's combiner adds it.
      const [h, t, logit] = entry.rows[0]!;
      const scored = model.scorer.scoreTriples(
        Uint32Array.of(h),
        Uint32Array.of(r),
        Uint32Array.of(t),
        entry.direction,
      )[0]!;
      const [query, candidate] = entry.direction === 'tail' ? [h, t] : [t, h];
      const evidence = model.combiner?.evidence(query, r, entry.direction);
      const served = evidence
        ? combinedLogit(scored, evidence.setting, evidence.found.get(candidate))
        : scored;
      expect(logit).toBeCloseTo(served, 4);
    }
  });

  it('kgc suggest --relation --top recomputes one relation and keeps the others', () => {
    const [isA, similar] = fixture.graph.filter.relations as [string, string];
    const before = readSuggestionsFile(dir) as SuggestionsFile;
    const run = runCli(['suggest', '--relation', similar, '--top', '5', '--json'], env, 120_000);
    expect(run.stderr).toMatch(/suggest relations=1\/1/);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ version, relations: 1, suggestions: 10 });
    const after = readSuggestionsFile(dir) as SuggestionsFile;
    expect(after.createdAt).not.toBe(before.createdAt);
    for (const e of after.relations) {
      if (e.relation === similar) expect(e.rows).toHaveLength(5);
      else
        expect(e.rows).toEqual(
          before.relations.find((b) => b.relation === isA && b.direction === e.direction)!.rows,
        );
    }
    const bad = runCli(['suggest', '--top', '0'], env);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--top must be an integer from 1 to 100000/);
  });

  it('stops when its signal aborts (before the work, or between relations) and leaves the file as it was', async () => {
    const before = fs.readFileSync(path.join(dir, 'suggestions.bin'));
    await expect(
      suggestVersion(db, dir, version, { perRelation: 10, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'TRAINING_ABORTED' });
    const controller = new AbortController();
    const running = suggestVersion(db, dir, version, {
      perRelation: 10,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(running).rejects.toMatchObject({ code: 'TRAINING_ABORTED' });
    expect(fs.readFileSync(path.join(dir, 'suggestions.bin')).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('exports tsv, csv and jsonl, filtered by relation and probability', () => {
    const [, similar] = fixture.graph.filter.relations as [string, string];
    const file = readSuggestionsFile(dir) as SuggestionsFile;
    const all = file.relations.flatMap((r) =>
      r.rows.map((row) => ({ relation: r.relation, p: row[3] })),
    );
    const ps = all.map((x) => x.p).sort((a, b) => a - b);
    const median = ps[Math.floor(ps.length / 2)]!;

    expect(runCli(['suggestions', 'export', '--out', out('s.tsv')], env).status).toBe(0);
    const tsv = fs.readFileSync(out('s.tsv'), 'utf8').trimEnd().split('\n');
    expect(tsv[0]).toBe('head\trelation\ttail\tdirection\tprobability\tlogit\tmodelVersion');
    expect(tsv).toHaveLength(all.length + 1);

    const csvRun = runCli(
      [
        'suggestions',
        'export',
        '--out',
        out('s.csv'),
        '--format',
        'csv',
        '--min-probability',
        String(median),
      ],
      env,
    );
    expect(csvRun.status).toBe(0);
    const csv = parseCsv(fs.readFileSync(out('s.csv'), 'utf8'));
    expect(csv[0]).toEqual([
      'head',
      'relation',
      'tail',
      'direction',
      'probability',
      'logit',
      'modelVersion',
    ]);
    expect(csv.length - 1).toBe(all.filter((x) => x.p >= median).length);
    for (const row of csv.slice(1)) {
      expect(Number(row[4])).toBeGreaterThanOrEqual(median);
      expect(row[6]).toBe(version);
    }

    const jsonRun = runCli(
      [
        'suggestions',
        'export',
        '--out',
        out('s.jsonl'),
        '--format',
        'jsonl',
        '--relation',
        similar,
      ],
      env,
    );
    expect(jsonRun.status).toBe(0);
    const lines = fs.readFileSync(out('s.jsonl'), 'utf8').trimEnd().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(all.filter((x) => x.relation === similar).length);
    expect(parsed.every((p) => p.relation === similar && p.modelVersion === version)).toBe(true);

    const badFormat = runCli(['suggestions', 'export', '--out', out('x'), '--format', 'xml'], env);
    expect(badFormat.status).not.toBe(0);
    expect(badFormat.stderr).toMatch(/--format/);
    expect(fs.existsSync(out('x'))).toBe(false);
    const badP = runCli(
      ['suggestions', 'export', '--out', out('x'), '--min-probability', '2'],
      env,
    );
    expect(badP.status).not.toBe(0);
    expect(badP.stderr).toMatch(/--min-probability/);
    const unknown = runCli(['suggestions', 'export', '--out', out('x'), '--relation', 'nope'], env);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/--relation nope/);
  });

  it('--to-neo4j writes KGC_SUGGESTED edges, replaces them on the next write, and they are never facts', async () => {
    const count = async () =>
      Number(
        (
          await db.read((tx) =>
            tx.run(
              'MATCH (:Entity)-[s:KGC_SUGGESTED]->(:Entity) WHERE s.modelVersion = $v RETURN count(s) AS n, collect(DISTINCT s.kgc_write) AS writes',
              { v: version },
            ),
          )
        ).records[0]!.get('n'),
      );
    const first = runCli(['suggestions', 'export', '--to-neo4j'], env, 120_000);
    expect(first.status).toBe(0);
    const n1 = await count();
    expect(n1).toBeGreaterThan(10);
    const sample = (
      await db.read((tx) =>
        tx.run(
          'MATCH (h:Entity)-[s:KGC_SUGGESTED]->(t:Entity) WHERE s.modelVersion = $v RETURN h.id AS h, t.id AS t, s {.*} AS s LIMIT 1',
          {
            v: version,
          },
        ),
      )
    ).records[0]!;
    expect(sample.get('s')).toMatchObject({ modelVersion: version });
    expect(typeof sample.get('s').probability).toBe('number');
    expect(typeof sample.get('s').logit).toBe('number');
    expect(fixture.graph.filter.relations).toContain(sample.get('s').relation);

    const [, similar] = fixture.graph.filter.relations as [string, string];
    const second = runCli(
      ['suggestions', 'export', '--to-neo4j', '--relation', similar, '--min-probability', '0'],
      env,
      120_000,
    );
    expect(second.status).toBe(0);
    const n2 = await count();
    expect(n2).toBeLessThan(n1);
    expect(n2).toBeGreaterThan(0);
    expect(second.stdout).toContain(`Wrote ${n2} KGC_SUGGESTED edges`);

    // The training snapshot, relation counts and known-edge reads never see them.
    const types = new Set((await exportDenseGraph(db)).relationNames);
    expect(types.has('KGC_SUGGESTED')).toBe(false);
    expect(types.has(similar)).toBe(true);
    expect((await relationCounts(db)).map((c) => c.name)).not.toContain('KGC_SUGGESTED');
    const exported = runCli(['export', '--out', out('train'), '--no-split'], env, 120_000);
    expect(exported.status).toBe(0);
    expect(fs.readFileSync(out('train/triples.txt'), 'utf8')).not.toMatch(/KGC_SUGGESTED/);
  });
});
