import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ErrorCode } from '../../../src/errors';
import {
  loadScorer,
  ModelStore,
  readVersionEdges,
  renderTrainingCurve,
  resolveTrainingConfig,
  train,
  writeKeys,
  writeVersionInfo,
} from '../../../src/model';
import type { VersionInfo } from '../../../src/model';

function info(version: string): VersionInfo {
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
async function writeModelVersion(store: ModelStore): Promise<string> {
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

describe('the model store', () => {
  let store: ModelStore;
  beforeEach(() => {
    store = new ModelStore(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-store-unit-')));
  });

  it('names versions sortably and renames a complete temp dir into place', async () => {
    const a = store.newVersionId(new Date('2026-01-01T00:00:00Z'));
    const b = store.newVersionId(new Date('2026-01-02T00:00:00Z'));
    expect(a < b).toBe(true);
    expect(a).toMatch(/^v20260101T000000Z-[0-9a-f]{6}$/);
    const version = await writeModelVersion(store);
    expect(store.list()).toEqual([version]);
    expect(fs.readdirSync(store.root)).toEqual([version]);
    const opened = store.open(version);
    expect(opened.info.version).toBe(version);
    expect(store.loadScorer(version).entities).toEqual(['a', 'b', 'c']);
    const edges = readVersionEdges(opened.dir);
    expect(Array.from(edges.trained)).toEqual([1, 3]);
    expect(edges.entities).toEqual(['a', 'b', 'c']);
  });

  it('refuses a missing or corrupt version with MODEL_INVALID', async () => {
    expect(() => store.open('v20260101T000000Z-abcdef')).toThrow(
      expect.objectContaining({ code: ErrorCode.MODEL_INVALID }),
    );
    const version = await writeModelVersion(store);
    const dir = store.dir(version);
    const tensors = path.join(dir, 'model.safetensors');
    const bytes = fs.readFileSync(tensors);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    fs.writeFileSync(tensors, bytes);
    expect(() => store.loadScorer(version)).toThrow(
      expect.objectContaining({ code: ErrorCode.MODEL_INVALID }),
    );
    fs.rmSync(path.join(dir, 'version.json'));
    expect(() => loadScorer(dir)).toThrow(
      expect.objectContaining({ code: ErrorCode.MODEL_INVALID }),
    );
    expect(() => store.dir('../escape')).toThrow(
      expect.objectContaining({ code: ErrorCode.BAD_USER_INPUT }),
    );
  });

  it('cleans temp dirs whose writer died, and keeps those of live writers', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadDir = path.join(store.root, `.tmp-v20260101T000000Z-aaaaaa-${dead.stdout}`);
    fs.mkdirSync(deadDir, { recursive: true });
    const live = store.createTemp('v20260101T000000Z-bbbbbb');
    expect(store.cleanStale()).toEqual([path.basename(deadDir)]);
    expect(fs.existsSync(deadDir)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });

  it('draws the training curve as an SVG with vega-lite', async () => {
    const svg = await renderTrainingCurve(
      [
        { epoch: 1, loss: 0.7 },
        { epoch: 2, loss: 0.4, validMrr: 0.3 },
        { epoch: 3, loss: 0.2, validMrr: 0.5 },
      ],
      'curve',
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('validation MRR');
    expect(svg).toContain('training loss');
  });
});
