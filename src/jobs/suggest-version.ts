import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import { rejectionsOf, streamOutEdges } from '../graph';
import type { Database } from '../graph';
import {
  loadServingModel,
  readSuggestionsFile,
  suggestRelation,
  SUGGESTIONS_FILE,
  writeSuggestionsFile,
} from '../model';
import type { RelationSuggestions, SuggestionsFile } from '../model';

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

/** Pairs in model indices, per relation index. */
type PairLists = Map<number, { heads: number[]; tails: number[] }>;

/**
 * Every edge of the graph now (accepted predictions included) and every rejection of the
 * relations asked for, as model index pairs: what is never suggested. One stream of the graph
 * for all relations; entities the model has not seen are skipped (it cannot suggest them).
 */
async function excludedPairs(
  db: Database,
  model: Awaited<ReturnType<typeof loadServingModel>>,
  relations: string[],
): Promise<PairLists> {
  const { scorer } = model;
  const lists: PairLists = new Map();
  const add = (r: number, h: number, t: number) => {
    let list = lists.get(r);
    if (!list) lists.set(r, (list = { heads: [], tails: [] }));
    list.heads.push(h);
    list.tails.push(t);
  };
  await streamOutEdges(db, { relations }, (head, out) => {
    const h = scorer.findEntity(head);
    if (h === undefined) return;
    for (const [relation, tail] of out) {
      const r = scorer.findRelation(relation);
      const t = scorer.findEntity(tail);
      if (r !== undefined && t !== undefined) add(r, h, t);
    }
  });
  for (const edge of await rejectionsOf(db, relations)) {
    const [h, r, t] = [edge.head, edge.relation, edge.tail];
    const ids = [scorer.findEntity(h), scorer.findRelation(r), scorer.findEntity(t)];
    if (ids.every((x) => x !== undefined))
      add(ids[1] as number, ids[0] as number, ids[2] as number);
  }
  return lists;
}

/**
 * Computes the version's suggestions across the graph (every relation asked for, both
 * directions, the best `perRelation` each, known and rejected edges left out) and writes them
 * to its directory's suggestions.json atomically, replacing an earlier file.
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
  const excluded = await excludedPairs(db, model, [...names]);
  const computed: RelationSuggestions[] = [];
  for (const [i, name] of names.entries()) {
    if (options.signal?.aborted) {
      throw new KgcError(
        ErrorCode.TRAINING_ABORTED,
        'Suggestions were stopped; nothing was written.',
      );
    }
    const r = model.scorer.relation(name);
    const pairs = excluded.get(r) ?? { heads: [], tails: [] };
    computed.push(
      ...(await suggestRelation(
        model,
        r,
        { heads: Uint32Array.from(pairs.heads), tails: Uint32Array.from(pairs.tails) },
        options.perRelation,
        options.signal,
      )),
    );
    options.onProgress?.(i + 1, names.length, name);
  }
  const earlier = options.relations ? readSuggestionsFile(dir) : undefined;
  const asked = new Set(names);
  const kept =
    earlier?.version === version ? earlier.relations.filter((r) => !asked.has(r.relation)) : [];
  const file: SuggestionsFile = {
    format: 1,
    version,
    createdAt: new Date().toISOString(),
    perRelation: options.perRelation,
    entities: model.scorer.entities.length,
    relations: [...kept, ...computed],
  };
  writeSuggestionsFile(dir, file);
  return {
    version,
    file: path.join(dir, SUGGESTIONS_FILE),
    relations: names.length,
    suggestions: computed.reduce((sum, r) => sum + r.rows.length, 0),
    seconds: (Date.now() - started) / 1000,
  };
}
