import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  describeVersion,
  parseManifest,
  writeHashed,
} from '../../../src/model/store/version-manifest';

const V = 'v20260101T120000Z-a1b2c3';
const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe('a version manifest (the remote completion marker)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-manifest-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists every file of a version with its size and sha256, subdirectories included', async () => {
    fs.writeFileSync(path.join(dir, 'version.json'), '{}');
    fs.mkdirSync(path.join(dir, 'extra'));
    fs.writeFileSync(path.join(dir, 'extra', 'a.bin'), 'abc');
    const manifest = await describeVersion(dir, V);
    expect(manifest).toEqual({
      format: 1,
      version: V,
      files: [
        { path: 'extra/a.bin', size: 3, sha256: sha('abc') },
        { path: 'version.json', size: 2, sha256: sha('{}') },
      ],
    });
    expect(parseManifest(JSON.stringify(manifest), V, 's3://b/p')).toEqual(manifest);
  });

  it('streams a download to a new file, measuring what was written', async () => {
    const target = path.join(dir, 'out.bin');
    const data = crypto.randomBytes(3 * 65536 + 7);
    const got = await writeHashed(
      Readable.from([data.subarray(0, 1000), data.subarray(1000)]),
      target,
    );
    expect(got).toEqual({
      size: data.length,
      sha256: crypto.createHash('sha256').update(data).digest('hex'),
    });
    expect(fs.readFileSync(target).equals(data)).toBe(true);
    // Never over an existing file: a download goes to a fresh temporary directory.
    await expect(writeHashed(Readable.from([data]), target)).rejects.toThrow(/EEXIST/);
  });

  it('refuses a marker that is not a manifest of the version or names unsafe paths', () => {
    const file = { path: 'model.safetensors', size: 1, sha256: sha('x') };
    const text = (patch: Record<string, unknown>) =>
      JSON.stringify({ format: 1, version: V, files: [file], ...patch });
    const unusable = [
      'not json',
      text({ version: 'v20260101T120000Z-ffffff' }),
      text({ format: 2 }),
      text({ files: 'all' }),
      text({ files: [{ ...file, path: '../outside' }] }),
      text({ files: [{ ...file, path: '/etc/passwd' }] }),
      text({ files: [{ ...file, path: '.hidden' }] }),
      text({ files: [{ ...file, path: 'a//b' }] }),
      text({ files: [{ ...file, size: -1 }] }),
      text({ files: [{ ...file, sha256: 'abc' }] }),
    ];
    for (const marker of unusable) {
      expect(() => parseManifest(marker, V, 's3://b/p')).toThrow(
        expect.objectContaining({ code: 'MODEL_INVALID' }) as Error,
      );
    }
  });
});
