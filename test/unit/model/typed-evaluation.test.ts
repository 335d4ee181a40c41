import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  evaluate,
  evaluateTyped,
  learnTypes,
  loadServingModel,
  readDatasetArrays,
  resolveTrainingConfig,
  train,
  writeTypesFile,
} from '../../../src/model';
import { nativeEngine } from '../../../src/model/native-engine';
import { toNativeData } from '../../../src/model/training-data';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

describe('kgc evaluate --typed: the engine ranks within each range', () => {
  const datasetDir = writeDatasetDir(classGraph(120));
  const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-typed-'));

  beforeAll(async () => {
    const config = resolveTrainingConfig('default', {
      entityDim: 16,
      relationDim: 4,
      epochs: 8,
      evalEvery: 0,
      threads: 2,
      seed: 3,
    });
    await train({ dir: datasetDir }, config, { outDir: modelDir });
  });
  afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

  it('reads a dataset folder with the engine’s own ids, and typed ranks are never worse', async () => {
    const data = readDatasetArrays(datasetDir);
    // Same vocabulary as the folder (the engine refuses arrays whose names differ from the model's).
    const untyped = await evaluate(modelDir, data, 'test');
    const fromDir = await evaluate(modelDir, { dir: datasetDir }, 'test');
    expect(untyped.overall.mrr).toBeCloseTo(fromDir.overall.mrr, 12);

    const typed = await evaluateTyped(modelDir, data, 'test');
    expect(typed.metrics.overall.count).toBe(untyped.overall.count);
    // Fewer competitors, the true answer always ranked: never a worse MR.
    expect(typed.metrics.overall.mr).toBeLessThanOrEqual(untyped.overall.mr);
    expect(typed.meanRangeShare).toBeLessThan(1);
    const strict = await evaluateTyped(modelDir, data, 'test', { missOutside: true });
    expect(strict.metrics.overall.mrr).toBeLessThanOrEqual(typed.metrics.overall.mrr + 1e-12);
    if (typed.answersInRange < 1)
      expect(strict.metrics.overall.mr).toBeGreaterThan(typed.metrics.overall.mr);
  });

  it('refuses a mask of the wrong size with a clear error', async () => {
    const data = readDatasetArrays(datasetDir);
    await expect(
      nativeEngine().evaluate(modelDir, toNativeData(data), 'test', 0, {
        bits: new Uint32Array(3),
      }),
    ).rejects.toThrow(/mask.*holds 3 words/);
  });

  it('serves a version with its types, and refuses types learned for another vocabulary', async () => {
    const data = readDatasetArrays(datasetDir);
    const served = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-typed-served-'));
    fs.cpSync(modelDir, served, { recursive: true });
    expect((await loadServingModel(served)).types).toBeUndefined();
    const types = learnTypes({
      entityCount: data.entities.length,
      relations: data.relations,
      heads: [0],
      relationIds: [0],
      tails: [1],
    });
    writeTypesFile(served, types);
    expect((await loadServingModel(served)).types?.isConsistent(0, 'tail', 1)).toBe(true);
    writeTypesFile(served, { ...types, entities: types.entities + 1 });
    await expect(loadServingModel(served)).rejects.toThrow(/learned for another vocabulary/);
    fs.rmSync(served, { recursive: true, force: true });
  });
});
