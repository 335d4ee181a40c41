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
  versionsToPrune,
} from '../../../src/model';
import { writeModelVersion } from '../../support/model-version';

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

  it('fsyncs every file and the temp dir before the rename, and the store after it', async () => {
    const events: string[] = [];
    const opened = new Map<number, string>();
    const open = fs.openSync.bind(fs);
    const temps = jest.spyOn(store, 'createTemp');
    const spies = [
      jest.spyOn(fs, 'openSync').mockImplementation((...args: Parameters<typeof fs.openSync>) => {
        const fd = open(...args);
        opened.set(fd, String(args[0]));
        return fd;
      }),
      jest.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
        events.push(`fsync ${opened.get(fd)}`);
      }),
      jest.spyOn(fs, 'renameSync').mockImplementationOnce((from, to) => {
        events.push('rename');
        fs.cpSync(String(from), String(to), { recursive: true });
        fs.rmSync(String(from), { recursive: true });
      }),
    ];
    let version: string;
    try {
      version = await writeModelVersion(store);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const rename = events.indexOf('rename');
    const before = events.slice(0, rename);
    const tempDir = temps.mock.results[0]!.value as string;
    const files = fs.readdirSync(store.dir(version));
    expect(files).toEqual(expect.arrayContaining(['model.safetensors', 'manifest.json']));
    for (const file of files) expect(before).toContain(`fsync ${path.join(tempDir, file)}`);
    // The directory after its files, and nothing of the version after the rename but the store.
    expect(before[before.length - 1]).toBe(`fsync ${tempDir}`);
    expect(events.slice(rename + 1)).toEqual([`fsync ${store.root}`]);
  });

  it('leaves no version when an fsync fails (EIO, disk full): the temp dir is never renamed', async () => {
    const spy = jest.spyOn(fs, 'fsyncSync').mockImplementation(() => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    try {
      await expect(writeModelVersion(store)).rejects.toThrow(/EIO/);
    } finally {
      spy.mockRestore();
    }
    expect(store.list()).toEqual([]);
    expect(fs.readdirSync(store.root).every((n) => n.startsWith('.tmp-'))).toBe(true);
  });

  it('chooses what retention removes: the oldest, never the protected ones, which count toward keep', () => {
    const v = (n: number) => `v2026010${n}T000000Z-aaaaaa`;
    const all = [1, 2, 3, 4, 5, 6].map(v);
    expect(versionsToPrune(all, 3, [])).toEqual([v(1), v(2), v(3)]);
    // Active v2, rollback target v1: both stay, plus the newest other.
    expect(versionsToPrune(all, 3, [v(2), v(1)])).toEqual([v(3), v(4), v(5)]);
    // More protected than keep: only those stay.
    expect(versionsToPrune(all, 1, [v(2), v(1)])).toEqual([v(3), v(4), v(5), v(6)]);
    expect(versionsToPrune(all, 10, [v(1)])).toEqual([]);
    // A protected id that is not on disk takes no place.
    expect(versionsToPrune(all, 2, ['v20250101T000000Z-bbbbbb'])).toEqual(all.slice(0, 4));
    expect(() => versionsToPrune(all, 0, [])).toThrow(RangeError);
  });

  it('removes a version out of the versions namespace first, so a crash leaves no half of it', async () => {
    const a = await writeModelVersion(store);
    const b = await writeModelVersion(store);
    const rm = fs.rmSync.bind(fs);
    // Crash (an exception here) after the rename, mid-removal.
    const spy = jest.spyOn(fs, 'rmSync').mockImplementation((target, options) => {
      if (String(target).includes('.tmp-pruned-') && fs.existsSync(target)) {
        throw new Error('killed');
      }
      rm(target, options);
    });
    try {
      expect(() => store.remove(a)).toThrow('killed');
    } finally {
      spy.mockRestore();
    }
    expect(store.list()).toEqual([b]);
    expect(fs.readdirSync(store.root).filter((n) => n.startsWith('.tmp-pruned-'))).toHaveLength(1);
    expect(store.remove(a)).toBe(false);
    expect(store.remove(b)).toBe(true);
    expect(fs.existsSync(store.dir(b))).toBe(false);
    expect(store.list()).toEqual([]);
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
