import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Database } from '../../../src/graph';
import { exportToFiles, type ExportProgress } from '../../../src/export';
import { ingestFile } from '../../../src/ingest';
import { testDatabase, uniqueId } from '../../support/test-database';
import {
  awkwardRelations,
  exportedTriples,
  generateTriples,
  keys,
  removeEntities,
  tempDir,
  writeTsv,
  type Triple,
} from './ingest-fixtures';

const csvField = (value: string) => (/[",]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const iri = (value: string) => `http://example.org/${encodeURIComponent(value)}`;

describe('ingest round trip', () => {
  let db: Database;
  const dir = tempDir();
  const prefixes: string[] = [];
  beforeAll(() => (db = testDatabase()));
  afterAll(async () => {
    for (const prefix of prefixes) await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const fresh = (name: string) => {
    const prefix = uniqueId(name);
    prefixes.push(prefix);
    return prefix;
  };

  it('TSV: ingest then export gives the same triple set; re-ingest is a no-op', async () => {
    const prefix = fresh('tsv');
    const triples = generateTriples(prefix, 500);
    const file = writeTsv(path.join(dir, `${prefix}.tsv`), triples);
    const first = await ingestFile(db, { file, batchSize: 64 });
    expect(first).toMatchObject({ triples: 500, written: 500, alreadyPresent: 0, skipped: 0 });
    expect(await exportedTriples(db, awkwardRelations(prefix))).toEqual(keys(triples));
    const again = await ingestFile(db, { file, batchSize: 64 });
    expect(again).toMatchObject({ triples: 500, written: 0, alreadyPresent: 500 });
    expect(await exportedTriples(db, awkwardRelations(prefix))).toEqual(keys(triples));
  });

  it('gzip TSV and CSV with named columns round-trip', async () => {
    const prefix = fresh('csv');
    const triples = generateTriples(prefix, 300);
    const gz = path.join(dir, `${prefix}.tsv.gz`);
    fs.writeFileSync(gz, gzipSync(triples.map((t) => `${t.join('\t')}\n`).join('')));
    const csv = path.join(dir, `${prefix}.csv`);
    fs.writeFileSync(
      csv,
      [
        'note,to,rel,from',
        ...triples.map(([h, r, t]) => ['x', t, r, h].map(csvField).join(',')),
      ].join('\n'),
    );
    expect(await ingestFile(db, { file: gz })).toMatchObject({ written: 300 });
    const viaCsv = await ingestFile(db, {
      file: csv,
      columns: { head: 'from', relation: 'rel', tail: 'to' },
    });
    expect(viaCsv).toMatchObject({ format: 'csv', triples: 300, written: 0, alreadyPresent: 300 });
    expect(await exportedTriples(db, awkwardRelations(prefix))).toEqual(keys(triples));
  });

  it('CSV alone and N-Triples round-trip; N-Triples literals become properties', async () => {
    const prefix = fresh('nt');
    const csvTriples = generateTriples(`${prefix}c`, 200);
    const csv = path.join(dir, `${prefix}.csv`);
    fs.writeFileSync(
      csv,
      ['head,relation,tail', ...csvTriples.map((t) => t.map(csvField).join(','))].join('\n'),
    );
    expect(await ingestFile(db, { file: csv })).toMatchObject({ written: 200 });
    expect(await exportedTriples(db, awkwardRelations(`${prefix}c`))).toEqual(keys(csvTriples));

    const raw = generateTriples(`${prefix}n`, 200);
    const ntTriples: Triple[] = raw.map(([h, r, t]) => [iri(h), r, iri(t)]);
    const nt = path.join(dir, `${prefix}.nt`);
    const lines = ntTriples.map(
      ([h, r, t]) =>
        `<${h}> <${r.replace(/[ "`<>{}|^\\]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}> <${t}> .`,
    );
    const subject = ntTriples[0]?.[0] as string;
    lines.push(
      `<${subject}> <http://example.org/name> "Name \\"quoted\\" ü"@en .`,
      '# a comment',
      '',
    );
    fs.writeFileSync(nt, lines.join('\n'));
    expect(await ingestFile(db, { file: nt })).toMatchObject({
      format: 'nt',
      written: 200,
      properties: 1,
    });
    const relations = [...new Set(ntTriples.map((t) => t[1]))];
    expect(await exportedTriples(db, relations)).toEqual(keys(ntTriples));
    const name = await db.read((tx) =>
      tx.run('MATCH (e:Entity {id: $id}) RETURN e[$key] AS v', {
        id: subject,
        key: 'http://example.org/name',
      }),
    );
    expect(name.records[0]?.get('v')).toBe('Name "quoted" ü');
  });

  it('export files re-ingest to the same graph, with accepted predictions filtered', async () => {
    const prefix = fresh('files');
    const triples = generateTriples(prefix, 400);
    await ingestFile(db, { file: writeTsv(path.join(dir, `${prefix}.tsv`), triples) });
    const relations = awkwardRelations(prefix);
    const [h, r, t] = triples[0] as Triple;
    await db.write((tx) =>
      tx.run(
        'MATCH (h:Entity {id: $h})-[e]->(t:Entity {id: $t}) WHERE type(e) = $r SET e.kgc_source = "prediction"',
        { h, r, t },
      ),
    );
    const out = path.join(dir, prefix);
    const whole = await exportToFiles(db, {
      out,
      filter: { relations, includePredictions: false },
    });
    expect(whole.files).toEqual({ 'triples.txt': 399 });
    const progress: ExportProgress[] = [];
    const split = await exportToFiles(db, {
      out: path.join(out, 'split'),
      filter: { relations },
      split: { seed: 7, validFraction: 0.1, testFraction: 0.1 },
      onProgress: (p) => progress.push(p),
    });
    expect(split.triples).toBe(400);
    // Streamed edges against the count store's total, then triples written per file.
    const streamed = progress.filter((p) => p.phase === 'stream');
    expect(streamed.at(-1)).toMatchObject({ done: 400, total: 400 });
    expect(progress.filter((p) => p.phase === 'write').map((p) => p.done)).toEqual([
      split.files['train.txt'],
      400 - (split.files['test.txt'] ?? 0),
      400,
    ]);
    const lines = ['train', 'valid', 'test'].flatMap((p) =>
      fs
        .readFileSync(path.join(out, 'split', `${p}.txt`), 'utf8')
        .split('\n')
        .filter(Boolean),
    );
    expect(new Set(lines.map((l) => l.split('\t').join('\u0000')))).toEqual(keys(triples));
    const again = await exportToFiles(db, {
      out: path.join(out, 'again'),
      filter: { relations },
      split: { seed: 7, validFraction: 0.1, testFraction: 0.1 },
    });
    expect(again.files).toEqual(split.files);
    for (const p of ['train', 'valid', 'test']) {
      expect(fs.readFileSync(path.join(out, 'again', `${p}.txt`), 'utf8')).toBe(
        fs.readFileSync(path.join(out, 'split', `${p}.txt`), 'utf8'),
      );
    }
    const back = await ingestFile(db, { file: path.join(out, 'split', 'train.txt') });
    expect(back.written).toBe(0);
  });
});
