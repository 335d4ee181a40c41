import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveTrainingConfig, Scorer, train } from '../../../src/model';
import { nativeEngine, type Native } from '../../../src/model/native-engine';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

const SMALL = {
  entityDim: 16,
  relationDim: 4,
  activation: 'leaky_relu' as const,
  lr: 0.01,
  // Enough for this graph's structure (a few seconds): fold-in fits a row to what the model
  // learned, so the model must have learned it.
  epochs: 300,
  evalEvery: 100,
  threads: 2,
  seed: 3,
};

describe('foldInAsync and withEntities through the binding', () => {
  let modelDir: string;
  let model: Native.NeptuneModel;
  let id: (name: string) => number;
  let rel: (name: string) => number;

  beforeAll(async () => {
    modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-fold-in-'));
    await train({ dir: writeDatasetDir(classGraph(40)) }, resolveTrainingConfig('default', SMALL), {
      outDir: modelDir,
    });
    model = nativeEngine().NeptuneModel.load(modelDir);
    id = (name) => model.entities.indexOf(name);
    rel = (name) => model.relations.indexOf(name);
  });

  afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

  /** The edges e5 has in classGraph, as a new entity that is a copy of e5 brings them. */
  function copyOfE5(): Native.FoldInEdge[] {
    const similar = rel('similar_to');
    return [
      { relation: rel('is_a'), other: id('class1'), outgoing: true },
      ...[9, 13, 17, 21].map((i) => ({ relation: similar, other: id(`e${i}`), outgoing: true })),
      ...[1, 37, 33, 29].map((i) => ({ relation: similar, other: id(`e${i}`), outgoing: false })),
    ];
  }

  it('fits one row per entity that ranks its edges’ other ends', async () => {
    const d = model.entityVectors(Uint32Array.of(0)).length;
    const rows = await model.foldInAsync([copyOfE5(), copyOfE5().slice(0, 2)], { seed: 1 });
    // jest's realm has its own Float32Array: check the tag.
    expect(Object.prototype.toString.call(rows)).toBe('[object Float32Array]');
    expect(rows.length).toBe(2 * d);
    expect(await model.foldInAsync([copyOfE5(), copyOfE5().slice(0, 2)], { seed: 1 })).toEqual(
      rows,
    );

    const grown = model.withEntities(['new5', 'new5b'], rows);
    const n = model.entities.length;
    expect(grown.entities.slice(n)).toEqual(['new5', 'new5b']);
    expect(model.entities.length).toBe(n); // the original is unchanged
    expect(grown.entityVectors(Uint32Array.of(n, n + 1))).toEqual(rows);
    // As head: its class is the best answer of (new5, is_a).
    const top = grown.topKBatch(Uint32Array.of(n), Uint32Array.of(rel('is_a')), 3);
    expect(grown.entities[top.entities[0]!]).toBe('class1');
    // Its similar_to tails rank above most entities.
    const ranks = grown.filteredRanks(
      new Uint32Array(4).fill(n),
      new Uint32Array(4).fill(rel('similar_to')),
      Uint32Array.from([9, 13, 17, 21], (i) => id(`e${i}`)),
    ).ranks;
    for (const r of ranks) expect(r).toBeLessThanOrEqual(10);
  });

  it('rejects bad ids and edgeless entities with ENGINE_ARGUMENT naming the entity', async () => {
    const ok = copyOfE5();
    await expect(model.foldInAsync([ok, []])).rejects.toMatchObject({
      code: 'ENGINE_ARGUMENT',
      message: expect.stringContaining('entity 1 has no edges'),
    });
    await expect(
      model.foldInAsync([[{ relation: 99, other: 0, outgoing: true }]]),
    ).rejects.toMatchObject({
      code: 'ENGINE_ARGUMENT',
      message: expect.stringContaining('entity 0, edge 0: relation 99 is not a base relation'),
    });
    await expect(
      model.foldInAsync([ok, [{ relation: 0, other: 1e6, outgoing: false }]]),
    ).rejects.toMatchObject({
      code: 'ENGINE_ARGUMENT',
      message: expect.stringContaining('entity 1, edge 0: other end 1000000 is out of range'),
    });
    expect(() => model.foldInAsync([ok], { steps: 2.5 })).toThrow(/options.steps = 2.5/);
    expect(() => model.foldInAsync([ok], { lr: -1 })).toThrow(/options.lr = -1/);
    const d = model.entityVectors(Uint32Array.of(0)).length;
    expect(() => model.withEntities(['e3'], new Float32Array(d))).toThrow(
      /"e3" is already in the model/,
    );
    expect(() => model.withEntities(['x'], new Float32Array(d + 1))).toThrow(/expected 1 names/);
  });

  it('grows a scorer that shares the vocabulary and answers for trained and appended ids', async () => {
    const base = Scorer.load(modelDir);
    const d = model.entityVectors(Uint32Array.of(0)).length;
    const n = base.entities.length;
    const once = base.withEntities(['a1'], new Float32Array(d).fill(0.1));
    const twice = base.withEntities(['a1', 'a2'], new Float32Array(2 * d).fill(0.2));
    expect([once.findEntity('a1'), once.findEntity('a2')]).toEqual([n, undefined]);
    expect([twice.findEntity('a1'), twice.findEntity('a2')]).toEqual([n, n + 1]);
    expect(twice.findEntity('e3')).toBe(base.findEntity('e3'));
    expect(twice.entities.slice(n)).toEqual(['a1', 'a2']);
    expect(base.findEntity('a1')).toBeUndefined();
    // The appended rows are scored as candidates and as heads.
    const top = twice.topK(n + 1, base.relation('is_a'), twice.entities.length);
    expect(top.map((p) => p.index).sort((x, y) => x - y)).toEqual(
      Array.from({ length: n + 2 }, (_, i) => i),
    );
    // Fold-in fits against the trained model only.
    await expect(twice.foldInAsync([copyOfE5()], { seed: 1 })).rejects.toThrow(
      /fold-in takes a trained model/,
    );
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    const many = Array.from({ length: 200 }, () => copyOfE5());
    const running = model.foldInAsync(many, { steps: 10_000 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(running).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
