import { ErrorCode, KgcError } from '../errors';
import { exportDenseGraph } from '../export';
import { rejectionsOf } from '../graph';
import type { Database } from '../graph';
import {
  loadServingModel,
  openSuggestions,
  suggestionExclusions,
  suggestRelation,
  SuggestionsWriter,
} from '../model';
import { EdgeColumns } from './edge-columns';

export interface SuggestOptions {
  /** Only these relations (the file keeps the others' earlier suggestions); undefined: all. */
  relations?: string[];
  /** Suggestions kept per relation and direction. */
  perRelation: number;
  signal?: AbortSignal;
  /** After each relation: relations done, of `total`. */
  onProgress?: (done: number, total: number, relation: string) => void;
}

export interface SuggestSummary {
  version: string;
  file: string;
  relations: number;
  suggestions: number;
  seconds: number;
}

type LoadedModel = Awaited<ReturnType<typeof loadServingModel>>;

/**
 * Every edge of the graph now (accepted predictions included) and every rejection of the
 * relations asked for, in model ids, held for the whole job by the engine and for JS: what is never
 * suggested. The graph comes as the export reads it (numbers, one read), each distinct entity
 * looked up in the model once; entities the model has not seen are skipped (it cannot suggest
 * them).
 */
async function excludedEdges(db: Database, model: LoadedModel, relations: string[]) {
  const { scorer } = model;
  const edges = new EdgeColumns();
  const graph = await exportDenseGraph(db, { relations });
  const entityIds = graph.entities.map((name) => scorer.findEntity(name) ?? -1);
  const relationIds = graph.relationNames.map((name) => scorer.findRelation(name) ?? -1);
  for (let i = 0; i < graph.heads.length; i++) {
    const h = entityIds[graph.heads[i] as number] as number;
    const r = relationIds[graph.relations[i] as number] as number;
    const t = entityIds[graph.tails[i] as number] as number;
    if (h >= 0 && r >= 0 && t >= 0) edges.push(h, r, t);
  }
  for (const edge of await rejectionsOf(db, relations)) {
    const [h, r, t] = [edge.head, edge.relation, edge.tail];
    const ids = [scorer.findEntity(h), scorer.findRelation(r), scorer.findEntity(t)];
    if (ids.every((x) => x !== undefined))
      edges.push(ids[0] as number, ids[1] as number, ids[2] as number);
  }
  const { heads, relations: rels, tails } = edges.columns();
  return suggestionExclusions(scorer, heads, rels, tails);
}

const stopped = () =>
  new KgcError(ErrorCode.TRAINING_ABORTED, 'Suggestions were stopped; nothing was written.');

/**
 * Computes the version's suggestions across the graph (every relation asked for, both
 * directions, the best `perRelation` each, known and rejected edges left out) and streams them
 * to its directory's suggestions.bin one relation at a time, replacing an earlier file whole
 * (a stop or a failure leaves it as it was). Only one relation's rows are held at a time.
 */
export async function suggestVersion(
  db: Database,
  dir: string,
  version: string,
  options: SuggestOptions,
): Promise<SuggestSummary> {
  const started = Date.now();
  const model = await loadServingModel(dir, version);
  const names = options.relations ?? model.scorer.relations;
  for (const name of names) model.scorer.relation(name);
  if (options.signal?.aborted) throw stopped();
  const exclude = await excludedEdges(db, model, [...names]);
  const writer = new SuggestionsWriter(dir);
  try {
    // A run over some relations keeps the others' earlier suggestions of this version.
    const earlier = options.relations ? openSuggestions(dir) : undefined;
    let computed = 0;
    if (earlier?.version === version) {
      const asked = new Set(names);
      earlier.lists.forEach((list, i) => {
        if (!asked.has(list.relation)) writer.add(list, earlier.columns(i));
      });
    }
    for (const [i, name] of names.entries()) {
      if (options.signal?.aborted) throw stopped();
      const r = model.scorer.relation(name);
      for (const list of await suggestRelation(
        model,
        r,
        exclude,
        options.perRelation,
        options.signal,
      )) {
        writer.add(list, list.columns);
        computed += list.columns.heads.length;
      }
      options.onProgress?.(i + 1, names.length, name);
    }
    if (options.signal?.aborted) throw stopped();
    const file = writer.finish({
      version,
      createdAt: new Date().toISOString(),
      perRelation: options.perRelation,
      entities: model.scorer.entities.length,
    });
    return {
      version,
      file,
      relations: names.length,
      suggestions: computed,
      seconds: (Date.now() - started) / 1000,
    };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
