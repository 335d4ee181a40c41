import path from 'node:path';
import {
  ModelStore,
  resolveTrainingConfig,
  train,
  writeKeys,
  writeVersionInfo,
} from '../../src/model';
import type { VersionInfo } from '../../src/model';

export function info(version: string): VersionInfo {
  return {
    version,
    createdAt: new Date().toISOString(),
    trigger: 'test',
    preset: 'default',
    overrides: {},
    config: resolveTrainingConfig('default'),
    snapshot: {
      triples: 3,
      entities: 3,
      relations: 1,
      fingerprint: 'f',
      train: 3,
      valid: 0,
      test: 0,
      seed: 1,
      heldOutRate: 0.05,
      movedToTrain: 0,
    },
    training: { epochsRun: 2, modelEpoch: 2, stop: 'completed', seconds: 0, epochSeconds: 0 },
    metrics: { test: null, valid: null },
    curve: [],
    timings: {},
  };
}

/** A real (tiny) model written the way the job writes a version. */
export async function writeModelVersion(store: ModelStore): Promise<string> {
  const version = store.newVersionId();
  const dir = store.createTemp(version);
  const triples = new Uint32Array([0, 0, 1, 1, 0, 2, 2, 0, 0, 0, 0, 2]);
  await train(
    {
      entities: ['a', 'b', 'c'],
      relations: ['r'],
      train: triples,
      valid: new Uint32Array(),
      test: new Uint32Array(),
    },
    resolveTrainingConfig('default', {
      entityDim: 8,
      relationDim: 4,
      epochs: 2,
      evalEvery: 0,
      threads: 1,
    }),
    { outDir: dir },
  );
  writeKeys(path.join(dir, 'snapshot.keys'), new Float64Array([1, 2, 3]));
  writeKeys(path.join(dir, 'trained.keys'), new Float64Array([1, 3]));
  writeVersionInfo(dir, info(version));
  store.commit(dir, version);
  return version;
}
