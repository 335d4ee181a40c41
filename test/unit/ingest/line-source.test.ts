import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createGzip, gzipSync } from 'node:zlib';
import { openLineSource, type SourceLine } from '../../../src/ingest/line-source';

async function readAll(file: string, maxLineBytes?: number) {
  const source = await openLineSource(file, maxLineBytes);
  const lines: SourceLine[] = [];
  for await (const chunk of source.chunks()) lines.push(...chunk);
  return lines;
}

describe('openLineSource', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-lines-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads plain and gzip files alike, CRLF included', async () => {
    const text = 'a\tb\tc\r\nd\te\tf\n';
    fs.writeFileSync(path.join(dir, 'x.tsv'), text);
    fs.writeFileSync(path.join(dir, 'x.tsv.gz'), gzipSync(text));
    expect(await readAll(path.join(dir, 'x.tsv'))).toEqual(['a\tb\tc', 'd\te\tf']);
    expect(await readAll(path.join(dir, 'x.tsv.gz'))).toEqual(['a\tb\tc', 'd\te\tf']);
  });

  it('marks a line with broken UTF-8 as null and keeps the others', async () => {
    const file = path.join(dir, 'bad.tsv');
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from('ok\tr\tü\n'), Buffer.from([0x61, 0xff, 0x0a]), Buffer.from('z')]),
    );
    expect(await readAll(file)).toEqual(['ok\tr\tü', null, 'z']);
  });

  it('gives FILE_NOT_FOUND for a missing file', async () => {
    await expect(openLineSource(path.join(dir, 'nope.tsv'))).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });

  it('reports a line past the limit as overlong, with its length, and keeps the others', async () => {
    const file = path.join(dir, 'long.tsv');
    // In one block, across 1 MiB read chunks, CRLF at exactly the limit, and at the end.
    const big = 'x'.repeat(3 << 20);
    fs.writeFileSync(
      file,
      `a\n${'y'.repeat(40)}\nb\n${big}\n${'z'.repeat(32)}\r\nc\n${'w'.repeat(33)}`,
    );
    expect(await readAll(file, 32)).toEqual([
      'a',
      { overlongBytes: 40, limit: 32 },
      'b',
      { overlongBytes: 3 << 20, limit: 32 },
      'z'.repeat(32),
      'c',
      { overlongBytes: 33, limit: 32 },
    ]);
    // Multi-byte characters count as bytes: 11 x 3 bytes is over 32.
    fs.writeFileSync(file, `${'€'.repeat(10)}\n${'€'.repeat(11)}\n`);
    expect(await readAll(file, 32)).toEqual(['€'.repeat(10), { overlongBytes: 33, limit: 32 }]);
  });

  it('a gzip bomb of one 64 MiB line is one overlong line, read in bounded memory', async () => {
    const file = path.join(dir, 'bomb.tsv.gz');
    const block = Buffer.alloc(1 << 20, 'a');
    await pipeline(
      (function* () {
        for (let i = 0; i < 64; i++) yield block;
      })(),
      createGzip({ level: 9 }),
      fs.createWriteStream(file),
    );
    expect(fs.statSync(file).size).toBeLessThan(1 << 20);
    // Live buffer memory: a young-generation collection before each sample frees the stream's
    // spent chunks (cheap, unlike a full one), so only what the reader holds is counted.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
    const live = () => {
      gc({ type: 'minor' });
      return process.memoryUsage().arrayBuffers;
    };
    const before = live();
    let peak = 0;
    const sample = () => (peak = Math.max(peak, live() - before));
    const sampler = setInterval(sample, 10);
    let lines: SourceLine[];
    try {
      lines = await readAll(file);
      sample();
    } finally {
      clearInterval(sampler);
    }
    expect(lines).toEqual([{ overlongBytes: 64 << 20, limit: 1 << 20 }]);
    // A reader that kept the line would hold all 64 MiB; half of it leaves room for chunks a
    // minor collection has not yet freed on a loaded machine (17 MiB seen beside other jobs).
    expect(peak).toBeLessThan(32 << 20);
  });
});
