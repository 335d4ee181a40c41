import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../../src/errors';
import type { Database } from '../../../../src/graph';
import { ingestFile } from '../../../../src/ingest';
import {
  importInstructions,
  remoteBulkRefused,
  writeImportFiles,
  writeImportFilesInto,
} from '../../../../src/ingest/bulk';
import { splitCsvRecord } from '../../../../src/ingest/parsers/csv-fields';
import { assertImportableFolder, runAdminImport } from '../../../../src/graph/local/admin-import';

/** A CSV file as neo4j-admin reads it: header names, then records (RFC 4180, one per line). */
function readCsv(file: string): { header: string[]; rows: string[][] } {
  const [header, ...rows] = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => splitCsvRecord(line) as string[]);
  return { header: header as string[], rows };
}

/** The graph the import files describe: entity ids with labels, and (head, type, tail) edges. */
function graphOf(files: { nodes: string; relationships: string }) {
  const nodes = readCsv(files.nodes);
  const rels = readCsv(files.relationships);
  const ids = new Map(nodes.rows.map(([n, id]) => [n as string, id as string]));
  return {
    nodeHeader: nodes.header,
    relHeader: rels.header,
    labels: new Map(
      nodes.rows.map(([, id, labels]) => [id as string, labels === '' ? [] : labels?.split(';')]),
    ),
    edges: rels.rows.map(([h, type, t]) => [ids.get(h as string), type, ids.get(t as string)]),
    nodeIds: nodes.rows.map(([n]) => Number(n)),
  };
}

describe('bulk import files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bulk-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    return file;
  };

  it('writes dense ids, awkward text quoted, each distinct edge once, labels unioned', async () => {
    const awkward = ['a "quoted" id', 'comma, id', 'back\\slash', ' padded ', 'ünï 関係 😀', '123'];
    const triples = write('t.tsv', [
      ...awkward.map((id, i) => `${id}\trel "${i % 2}", x\t${awkward[(i + 1) % awkward.length]}`),
      `${awkward[0]}\trel "0", x\t${awkward[1]}`, // repeated
      '',
    ]);
    const csv = path.join(dir, 't2.csv');
    fs.writeFileSync(csv, 'relation,head,tail\nlikes,x,y\nlikes,x,y\n');
    const labels = write('labels.tsv', [
      `${awkward[0]}\tPerson;Writer`,
      `${awkward[0]}\tPerson;Poet`,
      `only-labelled\tCity`,
    ]);
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const { files, counts } = await writeImportFiles(out, { files: [triples, csv], labels });
    const graph = graphOf(files);
    expect(graph.nodeHeader).toEqual([':ID', 'id', ':LABEL']);
    expect(graph.relHeader).toEqual([':START_ID', ':TYPE', ':END_ID']);
    expect(graph.edges).toEqual([
      ...awkward.map((id, i) => [id, `rel "${i % 2}", x`, awkward[(i + 1) % awkward.length]]),
      ['x', 'likes', 'y'],
    ]);
    expect(graph.labels.get(awkward[0] as string)).toEqual(['Person', 'Poet', 'Writer']);
    expect(graph.labels.get('only-labelled')).toEqual(['City']);
    expect(graph.labels.get(awkward[1] as string)).toEqual([]);
    expect([...graph.nodeIds].sort((a, b) => a - b)).toEqual(graph.nodeIds.map((_, i) => i));
    expect(counts).toMatchObject({
      lines: 8 + 3 + 3,
      triples: 9,
      edges: 7,
      duplicates: 2,
      entities: 9,
      relations: 3,
      labelled: 3,
      properties: 0,
      skipped: 0,
    });
    expect(files.properties).toBeUndefined();
  });

  it('keeps N-Triples literals aside as lines to ingest after the import; rdf:type labels', async () => {
    const nt = write('g.nt', [
      '<http://x/a> <http://x/knows> <http://x/b> .',
      '<http://x/a> <http://x/name> "Alice"@en .',
      '<http://x/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .',
      '<http://x/c> <http://x/name> "only a property" .',
    ]);
    const { files, counts } = await writeImportFiles(dir, { files: [nt] });
    expect(fs.readFileSync(files.properties as string, 'utf8')).toBe(
      '<http://x/a> <http://x/name> "Alice"@en .\n<http://x/c> <http://x/name> "only a property" .\n',
    );
    const graph = graphOf(files);
    expect(graph.edges).toEqual([['http://x/a', 'http://x/knows', 'http://x/b']]);
    expect(graph.labels.get('http://x/a')).toEqual(['Person']);
    expect(graph.labels.has('http://x/c')).toBe(true);
    expect(counts).toMatchObject({ triples: 1, properties: 2, labelled: 1, entities: 3 });
  });

  it('fails a bad file with the same error as the transactional ingest, naming file and line', async () => {
    const lines = ['a\tr\tb', 'a\tr', 'c\tr\td', '\tr\tx', 'e\tKGC_SUGGESTED\tf', 'g\tr'];
    const file = write('bad.tsv', lines);
    const transactional = await ingestFile({} as Database, { file }).catch((e: Error) => e);
    const bulk = await writeImportFiles(dir, { files: [file] }).catch((e: Error) => e);
    expect(bulk).toMatchObject({ code: ErrorCode.INGEST_INVALID_INPUT });
    expect((bulk as Error).message).toBe((transactional as Error).message);
    expect((bulk as Error).message).toMatch(
      /^bad\.tsv:2: expected 3 tab-separated columns, found 2; bad\.tsv:4: empty head id; bad\.tsv:5: .*\(and 1 more bad lines\)\. Nothing was written/,
    );
    const header = write('bad.csv', ['from,to', 'a,b']);
    await expect(writeImportFiles(dir, { files: [header] })).rejects.toThrow(
      /^bad\.csv:1: the CSV header has no column "head"/,
    );
  });

  it('with skipInvalid, loads the good lines and writes each bad one to the reject file', async () => {
    const file = write('mixed.tsv', ['a\tr\tb', 'a\tr', 'c\tr\td', 'x\ty\tz\tw']);
    const labels = write('labels.tsv', ['a\tPerson', 'b\tEntity']);
    const rejectPath = path.join(dir, 'rejected.tsv');
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const { files, counts } = await writeImportFiles(out, {
      files: [file],
      labels,
      skipInvalid: true,
      rejectPath,
    });
    expect(graphOf(files).edges).toEqual([
      ['a', 'r', 'b'],
      ['c', 'r', 'd'],
    ]);
    expect(counts.skipped).toBe(3);
    expect(counts.rejectFiles).toEqual([rejectPath, `${labels}.rejects.tsv`]);
    expect(fs.readFileSync(rejectPath, 'utf8')).toBe(
      'line\treason\ttext\n' +
        '2\texpected 3 tab-separated columns, found 2\ta r\n' +
        '4\texpected 3 tab-separated columns, found 4\tx y z w\n',
    );
    expect(fs.readFileSync(`${labels}.rejects.tsv`, 'utf8')).toMatch(
      /^line\treason\ttext\n2\tlabel 1 "Entity" is reserved/,
    );
  });

  it('--bulk-csv-only leaves no partial files when a line is bad', async () => {
    const out = path.join(dir, 'csv');
    const bad = write('bad.tsv', ['a\tr\tb', 'oops']);
    await expect(writeImportFilesInto(out, { files: [bad] })).rejects.toThrow(/bad\.tsv:2/);
    expect(fs.readdirSync(out)).toEqual([]);
    const good = write('good.tsv', ['a\tr\tb']);
    const { files } = await writeImportFilesInto(out, { files: [good] });
    expect(fs.readdirSync(out).sort()).toEqual(['entities.csv', 'relationships.csv']);
    expect(files.nodes).toBe(path.join(out, 'entities.csv'));
  });

  it('says how to import on a server kgc does not manage', () => {
    const text = importInstructions('graph', {
      nodes: '/data/my files/entities.csv',
      relationships: '/data/relationships.csv',
      properties: '/data/properties.nt',
    });
    expect(text).toContain(
      "neo4j-admin database import full graph '--nodes=Entity=/data/my files/entities.csv' " +
        '--relationships=/data/relationships.csv --id-type=integer --bad-tolerance=0 ' +
        '--overwrite-destination',
    );
    expect(text).toContain('npx kgc migrate');
    expect(text).toContain('npx kgc ingest /data/properties.nt');
    const refused = remoteBulkRefused('neo4j');
    expect(refused.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(refused.message).toMatch(/NEO4J_URI names a server kgc does not manage/);
    expect(refused.message).toContain('--bulk-csv-only DIR');
    expect(refused.message).toContain('--nodes=Entity=DIR/entities.csv');
  });

  it('quotes a path with a comma and says neo4j-admin cannot read it; kgc refuses to import from one', async () => {
    const text = importInstructions('graph', {
      nodes: '/data/a,b/entities.csv',
      relationships: '/data/a,b/relationships.csv',
    });
    expect(text).toContain("'--nodes=Entity=/data/a,b/entities.csv'");
    expect(text).toMatch(/reads a comma in a path as a separator/);
    const admin = { java: 'java-that-never-runs', classpath: '', home: '/nowhere' };
    const files = { nodes: '/x/a,b/entities.csv', relationships: '/x/relationships.csv' };
    await expect(
      runAdminImport(admin as unknown as Parameters<typeof runAdminImport>[0], 'neo4j', files),
    ).rejects.toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      message: expect.stringMatching(/"\/x\/a,b\/entities.csv" holds a comma/),
    });
    expect(() => assertImportableFolder('/state/dir', 'The folder')).not.toThrow();
  });
});
