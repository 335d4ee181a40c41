import fs from 'node:fs';
import path from 'node:path';
import {
  acceptPredictions,
  Database,
  revertAcceptedPrediction,
  TripleWriter,
} from '../../../src/graph';
import { splitStatements } from '../../../src/graph/migrations/migration-file';
import { ingestFile } from '../../../src/ingest';
import { testDatabase, uniqueId } from '../../support/test-database';
import { exportDenseGraph } from '../../../src/export';
import { removeEntities, tempDir, type Triple } from './ingest-fixtures';

const MIGRATION = path.resolve(
  __dirname,
  '../../../migrations/V0007__namespace_edge_provenance.cypher',
);

describe('an accepted prediction ingested as a fact stays a fact', () => {
  let db: Database;
  const dir = tempDir();
  const prefix = uniqueId('facts');
  const rel = `rel_${prefix}`;
  const id = (name: string) => `${prefix}:${name}`;
  const key = (h: string, t: string) => ({ head: id(h), relation: rel, tail: id(t) });
  const edgeProps = async (h: string, t: string) =>
    (
      await db.read((tx) =>
        tx.run(
          'MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r RETURN e {.*} AS e',
          { h: id(h), t: id(t), r: rel },
        ),
      )
    ).records.map((r) => r.get('e') as Record<string, unknown>);
  /** Exported edges of `rel` as `head tail`, accepted predictions left out. */
  const factsExported = async () => {
    const graph = await exportDenseGraph(db, { relations: [rel], includePredictions: false });
    return new Set(
      [...graph.heads].map(
        (h, i) => `${graph.entities[h]} ${graph.entities[graph.tails[i] as number]}`,
      ),
    );
  };
  const ingest = (name: string, triples: Triple[]) => {
    const file = path.join(dir, `${name}.tsv`);
    fs.writeFileSync(file, triples.map((t) => `${t.join('\t')}\n`).join(''));
    return ingestFile(db, { file });
  };

  beforeAll(async () => {
    db = testDatabase();
    // Entities and one fact, so the relation and both endpoints exist.
    await new TripleWriter(db).writeEdges([
      [id('a'), rel, id('z')],
      [id('a'), rel, id('a')],
      [id('b'), rel, id('a')],
      [id('c'), rel, id('a')],
    ]);
  });
  afterAll(async () => {
    await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accept, ingest the same edge, revert: EDGE_NOT_REVERTIBLE and the edge is still there', async () => {
    const score = { modelVersion: 'v-test', logit: 2.5, probability: 0.924 };
    await acceptPredictions(db, [{ ...key('a', 'b'), score }], 'alice');
    expect(await edgeProps('a', 'b')).toEqual([
      expect.objectContaining({ kgc_source: 'prediction', kgc_accepted_by: 'alice' }),
    ]);

    const summary = await ingest('confirm', [[id('a'), rel, id('b')]]);
    expect(summary).toMatchObject({ written: 0, alreadyPresent: 1, confirmed: 1 });

    const revert = revertAcceptedPrediction(db, key('a', 'b'), 'alice');
    await expect(revert).rejects.toMatchObject({ code: 'EDGE_NOT_REVERTIBLE' });
    await expect(revertAcceptedPrediction(db, key('a', 'b'), 'alice')).rejects.toThrow(
      /accepted from a prediction, then ingested as a fact \(confirmed \d{4}-/,
    );
    const [stored, ...more] = await edgeProps('a', 'b');
    expect(more).toHaveLength(0);
    // A fact now, with the acceptance kept as history.
    expect(stored).toMatchObject({
      kgc_source: 'ingest',
      kgc_accepted_by: 'alice',
      kgc_model_version: 'v-test',
      kgc_logit: 2.5,
    });
    expect(stored?.kgc_confirmed_at).toBeDefined();
    // Accepting it again is refused as a fact; export leaves it in without predictions.
    await expect(
      acceptPredictions(db, [{ ...key('a', 'b'), score: null }], 'alice'),
    ).rejects.toMatchObject({ code: 'EDGE_EXISTS' });
    expect(await factsExported()).toContain(`${id('a')} ${id('b')}`);
    // A second ingest changes nothing more.
    expect(await ingest('again', [[id('a'), rel, id('b')]])).toMatchObject({ confirmed: 0 });
  });

  it('an accepted prediction not ingested is still revertible', async () => {
    await acceptPredictions(db, [{ ...key('c', 'b'), score: null }], 'carol');
    await ingest('other', [[id('c'), rel, id('a')]]);
    expect(await factsExported()).not.toContain(`${id('c')} ${id('b')}`);
    await expect(revertAcceptedPrediction(db, key('c', 'b'), 'carol')).resolves.toMatchObject({
      acceptedBy: 'carol',
    });
    expect(await edgeProps('c', 'b')).toEqual([]);
  });

  it("a user's own `source` property is not mistaken for a prediction", async () => {
    // The app's own edge that happens to carry the old, unprefixed provenance names.
    await db.write((tx) =>
      tx.run(
        `MATCH (h:Entity {id: $h}), (t:Entity {id: $t})
         CREATE (h)-[e:$($r)]->(t) SET e.source = 'prediction', e.probability = 0.3`,
        { h: id('b'), t: id('z'), r: rel },
      ),
    );
    const summary = await ingest('user', [[id('b'), rel, id('z')]]);
    expect(summary).toMatchObject({ written: 0, alreadyPresent: 1, confirmed: 0 });
    expect(await edgeProps('b', 'z')).toEqual([{ source: 'prediction', probability: 0.3 }]);
    await expect(revertAcceptedPrediction(db, key('b', 'z'), 'alice')).rejects.toMatchObject({
      code: 'EDGE_NOT_REVERTIBLE',
      message: expect.stringContaining('was ingested, not accepted'),
    });
    expect(await factsExported()).toContain(`${id('b')} ${id('z')}`);
    expect(await edgeProps('b', 'z')).toHaveLength(1);
  });

  it('migration V0007 renames old provenance, idempotently, and leaves user edges alone', async () => {
    await db.write((tx) =>
      tx.run(
        `MATCH (a:Entity {id: $a}), (b:Entity {id: $b}), (z:Entity {id: $z})
         CREATE (a)-[:$($r) {source: 'prediction', modelVersion: 'v-old', logit: 1.5,
           probability: 0.8, acceptedBy: 'dave', acceptedAt: datetime('2025-01-02T03:04:05Z')}]->(z)
         CREATE (z)-[:$($r) {source: 'prediction', note: 'mine'}]->(b)`,
        { a: id('c'), b: id('b'), z: id('z'), r: rel },
      ),
    );
    const statements = splitStatements(fs.readFileSync(MIGRATION, 'utf8'));
    expect(statements).toHaveLength(1);
    for (let run = 0; run < 2; run++) {
      for (const statement of statements) await db.autoCommit(statement);
    }
    const [migrated] = await edgeProps('c', 'z');
    expect(migrated).toMatchObject({
      kgc_source: 'prediction',
      kgc_model_version: 'v-old',
      kgc_logit: 1.5,
      kgc_probability: 0.8,
      kgc_accepted_by: 'dave',
    });
    expect(Object.keys(migrated ?? {}).filter((k) => !k.startsWith('kgc_'))).toEqual([]);
    expect(await edgeProps('z', 'b')).toEqual([{ source: 'prediction', note: 'mine' }]);
    // The migrated edge is an accepted prediction again: revertible, with its history.
    await expect(revertAcceptedPrediction(db, key('c', 'z'), 'erin')).resolves.toMatchObject({
      acceptedBy: 'dave',
      acceptedAt: '2025-01-02T03:04:05.000Z',
      modelVersion: 'v-old',
    });
  });
});
