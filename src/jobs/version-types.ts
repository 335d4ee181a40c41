import type { DenseGraph } from '../export';
import { streamEntityLabels, type Database } from '../graph';
import { learnTypes, writeTypesFile, type TypesInput } from '../model';

/**
 * The graph's entity labels as the types learner takes them: label names in first-seen order
 * and each exported entity's label indices. Entities outside the export (no edges) are skipped.
 */
export async function exportedLabels(
  db: Database,
  entities: readonly string[],
): Promise<TypesInput['labels']> {
  const index = new Map(entities.map((id, i) => [id, i]));
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const of: (number[] | undefined)[] = new Array<number[] | undefined>(entities.length);
  await streamEntityLabels(db, (id, labels) => {
    const e = index.get(id);
    if (e === undefined) return;
    of[e] = labels.map((name) => {
      let l = nameIndex.get(name);
      if (l === undefined) {
        l = names.length;
        nameIndex.set(name, l);
        names.push(name);
      }
      return l;
    });
  });
  return names.length > 0 ? { names, of } : undefined;
}

/**
 * Learns the version's domains and ranges from every exported edge (types are facts of the
 * graph, not of the model: held-out edges count too) and its labels; writes types.json into
 * the version's directory. Returns a line for the job's log.
 */
export async function writeVersionTypes(
  db: Database,
  graph: DenseGraph,
  dir: string,
): Promise<string> {
  const labels = await exportedLabels(db, graph.entities);
  const types = learnTypes({
    entityCount: graph.entities.length,
    relations: graph.relationNames,
    heads: graph.heads,
    relationIds: graph.relations,
    tails: graph.tails,
    labels,
  });
  writeTypesFile(dir, types);
  return labels
    ? `types: domains and ranges from ${labels.names.length} label(s), structure for unlabelled entities`
    : `types: domains and ranges from the graph's structure (no labels)`;
}
