import { EventLoopTurns } from '../../event-loop-turns';
import { readVocabulary } from '../store/version-info';
import type { EdgeColumns, Vocabulary } from './graph-file';
import { GRAPH_FILE, readGraphFile, writeGraphFile } from './graph-file';
import { GraphIndex } from './graph-index';

/** A graph in its own ids, with the names they stand for. */
export interface NamedGraph {
  entities: readonly string[];
  relationNames: readonly string[];
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

/** Ids of `names` in `vocabulary` (-1: not in it); undefined when both orders agree. */
function remap(names: readonly string[], vocabulary: readonly string[]): Int32Array | undefined {
  const same =
    names.length === vocabulary.length && names.every((name, i) => vocabulary[i] === name);
  if (same) return undefined;
  const ids = new Map(vocabulary.map((name, i) => [name, i]));
  return Int32Array.from(names, (name) => ids.get(name) ?? -1);
}

/**
 * Writes `graph` into the model directory `dir` (after training: its manifest holds the
 * vocabularies) as graph.bin, in the model's ids; edges whose names the model lacks are left
 * out. Returns a line for the job's log.
 */
export async function writeVersionGraph(graph: NamedGraph, dir: string): Promise<string> {
  const vocabulary = readVocabulary(dir);
  const entityIds = remap(graph.entities, vocabulary.entities);
  const relationIds = remap(graph.relationNames, vocabulary.relations);
  let edges: EdgeColumns = { heads: graph.heads, relations: graph.relations, tails: graph.tails };
  if (entityIds || relationIds) {
    const map = (ids: Int32Array | undefined, id: number) => (ids ? (ids[id] as number) : id);
    const kept = [...graph.heads.keys()].filter(
      (i) =>
        map(entityIds, graph.heads[i] as number) >= 0 &&
        map(entityIds, graph.tails[i] as number) >= 0 &&
        map(relationIds, graph.relations[i] as number) >= 0,
    );
    edges = {
      heads: Int32Array.from(kept, (i) => map(entityIds, graph.heads[i] as number)),
      relations: Int32Array.from(kept, (i) => map(relationIds, graph.relations[i] as number)),
      tails: Int32Array.from(kept, (i) => map(entityIds, graph.tails[i] as number)),
    };
  }
  await writeGraphFile(dir, vocabulary, edges);
  const bytes = 12 * edges.heads.length;
  return `wrote ${GRAPH_FILE}: ${edges.heads.length} edge(s), ${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * The version's graph (graph.bin) as a path index, built with turns of the event loop; undefined
 * when the directory has none.
 */
export async function loadVersionGraph(
  dir: string,
  vocabulary: Vocabulary,
  turns = new EventLoopTurns(),
): Promise<GraphIndex | undefined> {
  const edges = await readGraphFile(dir, vocabulary, turns);
  if (!edges) return undefined;
  return GraphIndex.build(
    vocabulary.entities.length,
    vocabulary.relations.length,
    edges.heads,
    edges.relations,
    edges.tails,
    turns,
  );
}
