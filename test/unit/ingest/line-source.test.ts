import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { openLineSource } from '../../../src/ingest/line-source';

async function readAll(file: string) {
  const source = await openLineSource(file);
  const lines: (string | null)[] = [];
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
});
