import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../src/graph';
import { TripleWriter } from '../../src/graph';
import { runRetrainJob } from '../../src/jobs';
import { ModelStore } from '../../src/model';
import type { TrainingOverrides } from '../../src/model';
import { classGraph } from './generated-graph';
import type { Triple } from './generated-graph';
import { testServerConfig, uniqueId } from './test-database';

/** Tiny, fast training for tests (seconds on 2 cores). */
export const TINY: TrainingOverrides = {
  entityDim: 32,
  relationDim: 8,
  dropoutIn: 0.2,
  dropoutH2: 0.3,
  lr: 0.01,
  epochs: 40,
  evalEvery: 10,
  threads: 1,
  seed: 3,
};

/**
 * A class graph of `n` under fresh relation names and entity ids, so tests share a server safely;
 * or under `fixedPrefix`, after deleting what an earlier run left there: the held-out split hashes
 * entity names, so a fixed prefix makes a test's models (and their MRRs) the same on every run.
 */
export async function writeClassGraph(db: Database, n: number, fixedPrefix?: string) {
  const prefix = fixedPrefix ?? uniqueId('g');
  if (fixedPrefix !== undefined) {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id STARTS WITH $start DETACH DELETE e', {
        start: `${fixedPrefix}:`,
      }),
    );
  }
  const relations = { isA: `${prefix}_is_a`, similar: `${prefix}_similar_to` };
  const rename = ([h, r, t]: Triple): Triple => [
    `${prefix}:${h}`,
    r === 'is_a' ? relations.isA : relations.similar,
    `${prefix}:${t}`,
  ];
  const triples = classGraph(n).map(rename);
  await new TripleWriter(db).writeEdges(triples);
  return {
    prefix,
    triples,
    filter: { relations: [relations.isA, relations.similar] },
    /** Adds edges of the same graph (entities named like the rest). */
    add: (rows: Triple[]) => new TripleWriter(db).writeEdges(rows.map(rename)),
  };
}

/** A fresh registry scope and model store for one test. */
export function lifecycleFixture() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-store-'));
  return {
    scope: uniqueId('scope'),
    store: new ModelStore(root),
    root,
    config: testServerConfig(),
  };
}

/** A class graph of 60 and its first version, trained in a fresh scope and store. */
export async function firstVersion(db: Database) {
  const graph = await writeClassGraph(db, 60);
  const fixture = lifecycleFixture();
  const first = await runRetrainJob(db, fixture.config, {
    scope: fixture.scope,
    store: fixture.store,
    filter: graph.filter,
    overrides: TINY,
  });
  return { graph, ...fixture, first };
}
