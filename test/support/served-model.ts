import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, TripleWriter } from '../../src/graph';
import { exportDenseGraph, splitTriples } from '../../src/export';
import { resolveTrainingConfig, train } from '../../src/model';
import { classGraph } from './generated-graph';
import { TINY } from './lifecycle';

export const MIGRATIONS = path.resolve(__dirname, '../../migrations');

/** A class graph written under unique names, and a small model trained on it. */
export interface ServedGraph {
  id: (name: string) => string;
  isA: string;
  similar: string;
  modelDir: string;
  /** Removes the graph's entities, rejections and decisions from the shared server. */
  cleanUp(db: Database): Promise<void>;
}

/**
 * Writes classGraph(n) with every name suffixed by `tag` (tests share one server) and trains a
 * small model on it: a few seconds, enough for it to learn the classes.
 */
export async function trainServedGraph(db: Database, tag: string, n = 120): Promise<ServedGraph> {
  const id = (name: string) => `${name}_${tag}`;
  const isA = id('is_a');
  const similar = id('similar_to');
  const rows = classGraph(n).map(([h, r, t]): [string, string, string] => [
    id(h),
    r === 'is_a' ? isA : similar,
    id(t),
  ]);
  await new TripleWriter(db).writeEdges(rows);
  const graph = await exportDenseGraph(db, { relations: [isA, similar] });
  const split = splitTriples(graph, { seed: 1, validFraction: 0.1, testFraction: 0.1 });
  const ids = (indexes: Int32Array | number[]) =>
    Uint32Array.from(
      [...indexes].flatMap((i) => [graph.heads[i]!, graph.relations[i]!, graph.tails[i]!]),
    );
  const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-model-${tag}-`));
  await train(
    {
      entities: graph.entities,
      relations: graph.relationNames,
      train: ids(split.train),
      valid: ids(split.valid),
      test: ids(split.test),
    },
    resolveTrainingConfig('default', { ...TINY, evalEvery: 0 }),
    { outDir: modelDir },
  );
  return {
    id,
    isA,
    similar,
    modelDir,
    cleanUp: async (database) => {
      await database.write((tx) =>
        tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
      );
      await database.write((tx) =>
        tx.run(
          'MATCH (p:RejectedPrediction) WHERE p.head ENDS WITH $tag OR p.tail ENDS WITH $tag DELETE p',
          { tag },
        ),
      );
      await database.write((tx) =>
        tx.run('MATCH (d:Decision) WHERE d.head ENDS WITH $tag DELETE d', { tag }),
      );
      fs.rmSync(modelDir, { recursive: true, force: true });
    },
  };
}

export interface GraphQLResult<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; extensions: { code: string; stacktrace?: unknown } }[];
  headers: Headers;
}

/** One GraphQL POST, as an app sends it. */
export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  key?: string,
): Promise<GraphQLResult<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as Omit<GraphQLResult<T>, 'status' | 'headers'>;
  return { status: response.status, headers: response.headers, ...body };
}
