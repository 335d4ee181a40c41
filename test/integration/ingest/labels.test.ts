import fs from 'node:fs';
import path from 'node:path';
import { streamEntityLabels, type Database } from '../../../src/graph';
import { exportToFiles } from '../../../src/export';
import { ingestFile } from '../../../src/ingest';
import { testDatabase, uniqueId } from '../../support/test-database';
import { countEntities, removeEntities, tempDir } from './ingest-fixtures';

/** The labels (other than Entity) of the prefix's entities, through the export's stream. */
async function exportedLabels(db: Database, prefix: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  await streamEntityLabels(db, (id, labels) => {
    if (id.startsWith(prefix)) out.set(id, [...labels].sort());
  });
  return out;
}

describe('ingest --labels and rdf:type', () => {
  let db: Database;
  const dir = tempDir();
  const prefix = uniqueId('lab');
  // Labels are global names: each run makes its own.
  const L = (name: string) => `${name}_${prefix}`;
  beforeAll(() => (db = testDatabase()));
  afterAll(async () => {
    await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('adds parameterised labels in batches, idempotently, awkward names included', async () => {
    const awkward = L('back`tick`) DETACH DELETE (n:Entity');
    const file = path.join(dir, 'labels.tsv');
    fs.writeFileSync(
      file,
      [
        `${prefix}:alice\t${L('Person')};${L('Employee')}`,
        `# a comment`,
        `${prefix}:paris\t${L('City')};${L('City')}`,
        `${prefix}:odd\t${awkward};${L('ünïcødé 関係')}`,
        `${prefix}:alice\t${L('Person')}`,
      ].join('\n') + '\n',
    );
    const first = await ingestFile(db, { file, labels: true, batchSize: 1 });
    expect(first.labelled).toBe(4);
    const again = await ingestFile(db, { file, labels: true, batchSize: 2 });
    expect(again.labelled).toBe(4);
    const labels = await exportedLabels(db, prefix);
    expect(labels).toEqual(
      new Map([
        [`${prefix}:alice`, [L('Employee'), L('Person')].sort()],
        [`${prefix}:paris`, [L('City')]],
        [`${prefix}:odd`, [awkward, L('ünïcødé 関係')].sort()],
      ]),
    );
    // The injection attempt is a label like any other: nothing was deleted.
    expect(await countEntities(db, prefix)).toBe(3);
  });

  const bad: [string, string, RegExp][] = [
    ['a reserved label', `${prefix}:x\tEntity`, /:2: label 1 "Entity" is reserved/],
    [
      'a registry label',
      `${prefix}:x\tPerson;modelVersion`,
      /:2: label 2 "modelVersion" is reserved/,
    ],
    ['an internal prefix', `${prefix}:x\tKgcLock`, /:2: label 1 "KgcLock" is reserved/],
    ['an empty label', `${prefix}:x\tA;;B`, /:2: empty label 2/],
    ['padded label', `${prefix}:x\tA; B`, /:2: label 2 " B" starts or ends with white space/],
    ['a missing column', `${prefix}:x`, /:2: expected 2 tab-separated columns/],
    ['an empty id', `\tPerson`, /:2: empty entity id/],
  ];
  it.each(bad)(
    'refuses %s, naming line and field, writing nothing',
    async (_name, line, message) => {
      const own = uniqueId('labbad');
      const file = path.join(dir, `${own}.tsv`);
      fs.writeFileSync(file, `${own}:ok\t${L('Fine')}\n${line.replace(prefix, own)}\n`);
      await expect(ingestFile(db, { file, labels: true })).rejects.toThrow(message);
      await expect(ingestFile(db, { file, labels: true })).rejects.toMatchObject({
        code: 'INGEST_INVALID_INPUT',
      });
      expect(await countEntities(db, own)).toBe(0);
    },
  );

  it('turns rdf:type into labels of the subject, not edges', async () => {
    const file = path.join(dir, 'typed.nt');
    const s = `<${prefix}:bob>`;
    fs.writeFileSync(
      file,
      [
        `${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/${L('Person')}> .`,
        `${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:x:${L('Agent')}> .`,
        `${s} <http://x/knows> <${prefix}:carol> .`,
      ].join('\n') + '\n',
    );
    const summary = await ingestFile(db, { file });
    expect(summary).toMatchObject({ labelled: 2, triples: 1, written: 1 });
    const labels = await exportedLabels(db, prefix);
    expect(labels.get(`${prefix}:bob`)).toEqual([L('Agent'), L('Person')].sort());
    const types = await db.read((tx) =>
      tx.run('MATCH (:Entity {id: $id})-[r]->() RETURN collect(type(r)) AS types', {
        id: `${prefix}:bob`,
      }),
    );
    expect(types.records[0]?.get('types')).toEqual(['http://x/knows']);
  });

  it('refuses an rdf:type whose class would be a reserved label', async () => {
    const own = uniqueId('labnt');
    const file = path.join(dir, `${own}.nt`);
    fs.writeFileSync(
      file,
      `<${own}:a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://kgc/ModelVersion> .\n`,
    );
    await expect(ingestFile(db, { file })).rejects.toThrow(
      /:1: rdf:type label "ModelVersion" is reserved/,
    );
    expect(await countEntities(db, own)).toBe(0);
  });

  it("exports the exported entities' labels as labels.tsv beside the triples", async () => {
    const rel = `rel_${prefix}`;
    const triples = path.join(dir, 'export-edges.tsv');
    fs.writeFileSync(triples, `${prefix}:alice\t${rel}\t${prefix}:paris\n`);
    await ingestFile(db, { file: triples });
    const out = path.join(dir, 'export');
    const summary = await exportToFiles(db, { out, filter: { relations: [rel] } });
    // alice and paris are in the export; odd (labelled, no edge of `rel`) is not.
    expect(summary.files).toEqual({ 'triples.txt': 1, 'labels.tsv': 2 });
    const lines = fs.readFileSync(path.join(out, 'labels.tsv'), 'utf8').trim().split('\n');
    const parsed = new Map(lines.map((l) => l.split('\t') as [string, string]));
    expect(parsed.get(`${prefix}:alice`)?.split(';').sort()).toEqual(
      [L('Employee'), L('Person')].sort(),
    );
    expect(parsed.get(`${prefix}:paris`)).toBe(L('City'));
  });
});
