import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../../src/graph';
import { exportDenseGraph } from '../../../src/export';

export type Triple = [string, string, string];

/** Relation names that must survive the round trip: spaces, slashes, quotes, backticks, unicode. */
export function awkwardRelations(prefix: string): string[] {
  return [
    `${prefix}/film/film/genre`,
    `${prefix} has spaces`,
    `${prefix} "double" and 'single'`,
    `${prefix} back\`tick\`s`,
    `${prefix} ünïcødé → 関係 😀`,
    `${prefix},comma;semi`,
  ];
}

/** `count` distinct triples over `entities` entities, all ids and relations prefixed. */
export function generateTriples(prefix: string, count: number, entities = 200): Triple[] {
  const relations = awkwardRelations(prefix);
  const out = new Map<string, Triple>();
  let s = 12345;
  const next = (k: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0; // exact 32-bit LCG
    return (s >>> 8) % k;
  };
  while (out.size < count) {
    const t: Triple = [
      `${prefix}:e${next(entities)}`,
      relations[next(relations.length)] as string,
      `${prefix}:e ${next(entities)}`,
    ];
    out.set(t.join('\u0000'), t);
  }
  return [...out.values()];
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-ingest-'));
}

export function writeTsv(file: string, triples: Triple[]): string {
  fs.writeFileSync(file, triples.map((t) => `${t.join('\t')}\n`).join(''));
  return file;
}

/** The triples the graph holds for these relations, exported through the real export path. */
export async function exportedTriples(db: Database, relations: string[]): Promise<Set<string>> {
  const graph = await exportDenseGraph(db, { relations });
  const out = new Set<string>();
  for (let i = 0; i < graph.heads.length; i++) {
    out.add(
      [
        graph.entities[graph.heads[i] as number],
        graph.relationNames[graph.relations[i] as number],
        graph.entities[graph.tails[i] as number],
      ].join('\u0000'),
    );
  }
  return out;
}

export function keys(triples: Triple[]): Set<string> {
  return new Set(triples.map((t) => t.join('\u0000')));
}

export async function countEntities(db: Database, prefix: string): Promise<number> {
  const result = await db.read((tx) =>
    tx.run('MATCH (e:Entity) WHERE e.id STARTS WITH $prefix RETURN count(e) AS n', { prefix }),
  );
  return result.records[0]?.get('n') as number;
}

export async function removeEntities(db: Database, prefix: string): Promise<void> {
  await db.write((tx) =>
    tx.run('MATCH (e:Entity) WHERE e.id STARTS WITH $prefix DETACH DELETE e', { prefix }),
  );
}
