import fs from 'node:fs';
import { readCombiner, writeCombiner } from '../../../src/model/rules/combiner-file';
import type { CombinerFile } from '../../../src/model/rules/combiner-file';
import type { GateResult } from '../../../src/jobs/promotion-gate';
import { Database } from '../../../src/graph';
import { getActiveVersion, listTrainingRuns, listVersions } from '../../../src/graph/registry';
import { canonical, DEFAULT_STABLE_SPLIT, stableSplit, tripleKeys } from '../../../src/export';
import { runRetrainJob } from '../../../src/jobs/retrain-job';
import { loadServingModelAsync, readRules } from '../../../src/model';
import { readVersionInfo } from '../../../src/model/store/version-info';
import { lifecycleFixture, TINY, writeClassGraph } from '../../support/lifecycle';
import { testDatabase } from '../../support/test-database';

jest.setTimeout(180_000);

describe('the retraining job', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('promotes the first version, then rejects a worse one with both scores', async () => {
    // A fixed prefix fixes the held-out split, and with the seed both versions and their MRRs.
    const graph = await writeClassGraph(db, 80, 'retrain_job_gate');
    const { scope, store, config } = lifecycleFixture();
    const split = { heldOutFraction: 0.2 };
    const first = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
    });
    expect(first.promoted).toBe(true);
    expect(first.status).toBe('succeeded');
    expect(await getActiveVersion(db, scope)).toEqual({ version: first.version, dir: first.dir });
    for (const file of [
      'manifest.json',
      'model.safetensors',
      'version.json',
      'metrics.json',
      'training-curve.svg',
      'rules.json',
      'graph.bin',
      'combiner.json',
    ]) {
      expect(fs.existsSync(`${first.dir}/${file}`)).toBe(true);
    }
    // How the version combines its model with its rules, chosen on its validation edges.
    const combiner = readCombiner(first.dir as string);
    expect(combiner?.fit.edges).toBeGreaterThan(0);
    expect(combiner?.fit.halves).toHaveLength(2);
    for (const mrr of [combiner?.fit.modelMrr, combiner?.fit.hybridMrr]) {
      expect(mrr).toBeGreaterThan(0);
      expect(mrr).toBeLessThanOrEqual(1);
    }
    expect(combiner?.fit.hybridMrr).toBeGreaterThanOrEqual(combiner?.fit.modelMrr as number);
    // The version's graph (every edge of the snapshot, in the model's ids) serves reasons.
    const served = await loadServingModelAsync(first.dir as string, first.version as string);
    const snapshot = readVersionInfo(first.dir as string).snapshot;
    expect(served.graph?.heads.length).toBe(snapshot.triples);
    expect(served.graph?.nodes).toBe(served.scorer.entities.length);
    // The class graph's own rule: an entity is in the class of the entities it is similar to.
    const [isA, similar] = graph.filter.relations as [string, string];
    const mined = readRules(first.dir as string)?.rules[isA] ?? [];
    expect(mined).toContainEqual(
      expect.objectContaining({
        body: [
          { relation: similar, inverse: false },
          { relation: isA, inverse: false },
        ],
        confidence: 1,
      }),
    );

    const worse = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: { ...TINY, epochs: 1, evalEvery: 0 },
      // A warm start from `first` would not be worse: one epoch from a fresh init is.
      fromScratch: true,
    });
    expect(worse.promoted).toBe(false);
    expect(worse.status).toBe('rejected');
    expect(worse.candidateMrr).toBeLessThan(worse.activeMrr as number);
    expect((await getActiveVersion(db, scope))?.version).toBe(first.version);
    const versions = await listVersions(db, scope);
    expect(versions.map((v) => [v.version, v.status])).toEqual([
      [worse.version, 'rejected'],
      [first.version, 'active'],
    ]);
    const runs = await listTrainingRuns(db, { first: 10 }, scope);
    expect(runs.items.map((r) => r.status)).toEqual(['rejected', 'succeeded']);
  });

  it('compares the versions as they serve: each with the rules its combiner adds', async () => {
    const graph = await writeClassGraph(db, 80);
    const { scope, store, config } = lifecycleFixture();
    const split = { heldOutFraction: 0.2 };
    const weak = { ...TINY, epochs: 1, evalEvery: 0 };
    const first = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: weak,
    });
    // The active version adds its rules at the grid's largest weight everywhere: the class
    // graph's rule (similar entities share a class) finds most held-out is_a answers.
    const fitted = readCombiner(first.dir as string) as CombinerFile;
    writeCombiner(first.dir as string, {
      ...fitted,
      global: { aggregate: 'noisyOr', w: 200 },
      groups: {},
    });
    const second = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: weak,
      fromScratch: true,
    });
    const gate = second.gate as GateResult;
    expect(gate.compared).toBeGreaterThan(0);
    for (const mrr of [gate.candidateModelMrr, gate.activeModelMrr, gate.candidateMrr]) {
      expect(mrr).toBeGreaterThan(0);
      expect(mrr).toBeLessThanOrEqual(1);
    }
    expect(gate.activeMrr).toBeGreaterThan((gate.activeModelMrr as number) + 0.05);
    // The decision and the run's scores are the served ones.
    expect(second.activeMrr).toBe(gate.activeMrr);
    expect(second.candidateMrr).toBe(gate.candidateMrr);
    expect(second.promoted).toBe((gate.candidateMrr as number) >= (gate.activeMrr as number));
    // A candidate whose combiner keeps the model alone everywhere is served as the model.
    const own = readCombiner(second.dir as string) as CombinerFile;
    const settings = [own.global, ...Object.values(own.groups)];
    if (settings.every((setting) => setting.w === 0)) {
      expect(gate.candidateMrr).toBe(gate.candidateModelMrr);
    }
  });

  it('compares on edges both versions know, counts the rest, and skips a run with too few changes', async () => {
    const graph = await writeClassGraph(db, 80);
    const { scope, store, config } = lifecycleFixture();
    const split = { heldOutFraction: 0.2 };
    const first = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
    });
    const skipped = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
      trigger: 'schedule',
      minChangedEdges: 1,
    });
    expect(skipped).toMatchObject({ status: 'skipped', changedEdges: 0, version: null });

    // 30 new entities, six edges each: some of their edges land in test, unknown to `first`.
    const added: [string, string, string][] = [];
    for (let i = 0; i < 30; i++) {
      added.push([`n${i}`, 'is_a', `class${i % 4}`]);
      for (const step of [4, 8, 12, 16, 20])
        added.push([`n${i}`, 'similar_to', `e${(i + step) % 80}`]);
    }
    await graph.add(added);
    // 180 changed edges and 30 new entities: below both thresholds, then at the entity one.
    const lines: string[] = [];
    const thresholds = { minChangedEdges: 1000, minNewEntities: 31 };
    const below = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
      trigger: 'schedule',
      ...thresholds,
      log: (line) => lines.push(line),
    });
    expect(below).toMatchObject({ status: 'skipped', changedEdges: added.length, version: null });
    expect(lines).toContain(
      `skipped: 180 edges changed, 30 new entities since ${first.version}; below 1000 changed edge(s) and 31 new entities`,
    );
    const second = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
      trigger: 'schedule',
      minChangedEdges: 1000,
      minNewEntities: 30,
      log: (line) => lines.push(line),
    });
    expect(lines).toContain(
      `training: 180 edges changed, 30 new entities since ${first.version}; reached 30 new entities`,
    );
    expect(second.changedEdges).toBe(added.length);
    expect(second.gate?.leftOutUnknown).toBeGreaterThan(0);
    expect(second.gate?.leftOutTrained).toBe(0);
    expect(second.gate?.compared).toBeGreaterThan(0);
    expect(second.gate?.compared).toBeLessThan(second.metrics?.overall.count as number);
    expect(second.gate?.equalized).toBe(true);
    const v2 = store.open(second.version as string).info;
    const v1 = store.open(first.version as string).info;
    expect(v2.snapshot.triples).toBe(v1.snapshot.triples + added.length);
    expect(v2.snapshot.fingerprint).not.toBe(v1.snapshot.fingerprint);
    // Staleness counts within the relations a version was trained on.
    expect(v2.snapshot.relationFilter).toEqual(graph.filter.relations);
    // Every edge held out for `first` is still held out: same hash, same part.
    expect(v2.snapshot.test).toBeGreaterThanOrEqual(v1.snapshot.test);
    expect(v2.curve.length).toBe(TINY.epochs);
    expect(v2.metrics.test?.perRelation.length).toBeGreaterThan(0);
  });

  it('leaves out of the gate a held-out edge the active version trained on', async () => {
    const graph = await writeClassGraph(db, 80, 'retrain_left_out');
    const { scope, store, config } = lifecycleFixture();
    const split = { ...DEFAULT_STABLE_SPLIT, heldOutFraction: 0.2 };
    const [isA, similar] = graph.filter.relations as [string, string];
    // An entity whose only edge hashes into test: v1 keeps that edge in train (coverage);
    // once a second edge covers the entity, the edge is back in test, but v1 trained on it.
    const lonely = (k: number) => `${graph.prefix}:lonely${k}`;
    const lonelyEdge = (k: number): Triple => [lonely(k), isA, `${graph.prefix}:class0`];
    const otherEdge = (k: number): Triple => [lonely(k), similar, `${graph.prefix}:e0`];
    const partOf = (triples: Triple[], edge: Triple) => {
      const g = dense(triples);
      const s = stableSplit(g, tripleKeys(g), split);
      const e = new Map(g.entities.map((x, i) => [x, i]));
      const find = (idx: Int32Array) =>
        Array.from(idx).some(
          (i) =>
            g.heads[i] === e.get(edge[0]) &&
            g.tails[i] === e.get(edge[2]) &&
            g.relationNames[g.relations[i] as number] === edge[1],
        );
      return find(s.test) ? 'test' : find(s.valid) ? 'valid' : 'train';
    };
    let k = 0;
    while (
      partOf([...graph.triples, lonelyEdge(k)], lonelyEdge(k)) !== 'train' ||
      partOf([...graph.triples, lonelyEdge(k), otherEdge(k)], lonelyEdge(k)) !== 'test'
    ) {
      k++;
    }
    await graph.add([[`lonely${k}`, 'is_a', 'class0']]);
    await runRetrainJob(db, config, { scope, store, filter: graph.filter, split, overrides: TINY });
    await graph.add([[`lonely${k}`, 'similar_to', 'e0']]);
    const second = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
    });
    expect(second.gate?.leftOutTrained).toBe(1);
    expect(second.gate?.leftOutUnknown).toBe(0);
  });

  it('tunes when asked, stores the winner for the scope, and the next retraining reuses it', async () => {
    const graph = await writeClassGraph(db, 80);
    const { scope, store, config } = lifecycleFixture();
    const split = { heldOutFraction: 0.2 };
    const lines: string[] = [];
    const tuned = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: { threads: 1 },
      tuneSeconds: 8,
      log: (line) => lines.push(line),
    });
    expect(tuned.promoted).toBe(true);
    expect(lines.some((l) => /^trial 0 rung 1\//.test(l))).toBe(true);
    const stored = JSON.parse(fs.readFileSync(`${store.root}/tuned-settings.json`, 'utf8'))[scope];
    expect(stored.version).toBe(tuned.version);
    expect(stored.settings.threads).toBe(1);
    const info = JSON.parse(fs.readFileSync(`${tuned.dir}/version.json`, 'utf8'));
    expect(info.tuned).toMatchObject({ searched: true, settings: stored.settings });
    expect(fs.existsSync(`${tuned.dir}/model.safetensors`)).toBe(true);

    const reused = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: { epochs: 3 },
      force: true,
      log: (line) => lines.push(line),
    });
    const again = JSON.parse(fs.readFileSync(`${reused.dir}/version.json`, 'utf8'));
    expect(again.tuned).toMatchObject({ searched: false, from: tuned.version });
    // The stored settings apply; the caller's explicit overrides win over them.
    expect(again.overrides).toEqual({ ...stored.settings, epochs: 3 });
    expect(again.training.epochsRun).toBeLessThanOrEqual(3);
    expect(lines.some((l) => l.startsWith(`using the settings tuned at ${stored.tunedAt}`))).toBe(
      true,
    );

    const plain = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: { ...TINY, epochs: 2 },
      useTunedSettings: false,
      force: true,
    });
    const info3 = JSON.parse(fs.readFileSync(`${plain.dir}/version.json`, 'utf8'));
    expect(info3.tuned).toBeUndefined();
    expect(info3.overrides).toEqual({ ...TINY, epochs: 2 });
  });
});

type Triple = [string, string, string];

/** A DenseGraph of named triples, as the export builds it. */
function dense(triples: Triple[]) {
  const entities = [...new Set(triples.flatMap(([h, , t]) => [h, t]))].sort();
  const relations = [...new Set(triples.map(([, r]) => r))].sort();
  const e = new Map(entities.map((x, i) => [x, i]));
  const r = new Map(relations.map((x, i) => [x, i]));
  return canonical(
    entities,
    relations,
    Int32Array.from(triples, ([h]) => e.get(h) as number),
    Int32Array.from(triples, ([, rel]) => r.get(rel) as number),
    Int32Array.from(triples, ([, , t]) => e.get(t) as number),
  );
}
