import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../../src/graph';
import { ingestFile } from '../../../src/ingest';
import { testDatabase, uniqueId } from '../../support/test-database';
import { countEntities, removeEntities, tempDir } from './ingest-fixtures';

describe('ingest bad input', () => {
  let db: Database;
  const dir = tempDir();
  const prefix = uniqueId('bad');
  beforeAll(() => (db = testDatabase()));
  afterAll(async () => {
    await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const good = (i: number) => `${prefix}:a${i}\trel_${prefix}\t${prefix}:b${i}\n`;
  const cases: [string, string | Buffer, RegExp][] = [
    [
      'wrong column count',
      `${good(1)}${prefix}:x\tonly two\n`,
      /:2: expected 3 tab-separated columns, found 2/,
    ],
    ['empty id', `${good(1)}${good(2)}\trel\t${prefix}:y\n`, /:3: empty head id/],
    [
      'overlong id',
      `${good(1)}${prefix}:x\trel\t${'z'.repeat(2000)}\n`,
      /:2: tail id is 2000 characters long; the limit is 1024/,
    ],
    [
      'broken encoding',
      Buffer.concat([
        Buffer.from(good(1)),
        Buffer.from([0x41, 0xc3, 0x28, 0x09, 0x72, 0x09, 0x62, 0x0a]),
      ]),
      /:2: invalid UTF-8 byte sequence/,
    ],
    [
      'overlong line',
      `${good(1)}${'x'.repeat((1 << 20) + 1)}\n${good(2)}`,
      /:2: line is 1048577 bytes long; the limit is 1048576 bytes/,
    ],
  ];

  it.each(cases)(
    '%s: strict mode names file and line and writes nothing',
    async (name, content, message) => {
      const file = path.join(dir, `${name.replace(/ /g, '-')}.tsv`);
      fs.writeFileSync(file, content);
      const failure = ingestFile(db, { file });
      await expect(failure).rejects.toMatchObject({ code: 'INGEST_INVALID_INPUT' });
      await expect(ingestFile(db, { file })).rejects.toThrow(message);
      await expect(ingestFile(db, { file })).rejects.toThrow(/Nothing was written/);
      expect(await countEntities(db, prefix)).toBe(0);
    },
  );

  it('a CSV header without the named columns fails the file', async () => {
    const file = path.join(dir, 'header.csv');
    fs.writeFileSync(file, `h,r,t\n${prefix}:a,r,${prefix}:b\n`);
    await expect(ingestFile(db, { file, skipInvalid: true })).rejects.toThrow(
      /header\.csv:1: the CSV header has no column "head"/,
    );
  });

  it('missing and unreadable files give FILE_NOT_FOUND', async () => {
    await expect(ingestFile(db, { file: path.join(dir, 'missing.tsv') })).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: expect.stringContaining('No such file'),
    });
    await expect(ingestFile(db, { file: dir })).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('--skip-invalid writes the good lines and the bad ones with reasons to the reject file', async () => {
    const file = path.join(dir, 'mixed.tsv');
    fs.writeFileSync(file, `${good(1)}broken line\n${good(2)}\t\t\n${good(3)}`);
    const rejectPath = path.join(dir, 'mixed.rejects.tsv');
    const summary = await ingestFile(db, { file, skipInvalid: true, rejectPath });
    expect(summary).toMatchObject({
      lines: 5,
      triples: 3,
      written: 3,
      skipped: 2,
      rejectFile: rejectPath,
    });
    expect(fs.readFileSync(rejectPath, 'utf8').split('\n')).toEqual([
      'line\treason\ttext',
      '2\texpected 3 tab-separated columns, found 1\tbroken line',
      '4\tempty head id\t  ',
      '',
    ]);
    expect(await countEntities(db, prefix)).toBe(6);
  });
});
