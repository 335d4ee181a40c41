import { EventLoopTurns } from '../../event-loop-turns';
import { mineRules } from './mine-rules';
import { writeRules } from './rules-file';
import { writeVersionGraph } from './version-graph';
import type { NamedGraph } from './version-graph';

/**
 * The retrain job's rule step: mines the version's snapshot of the graph and writes rules.json
 * into its directory, and the snapshot itself as graph.bin (reasons are searched in it when the
 * version serves). Returns a line for the job's log.
 */
export async function mineVersionRules(
  graph: NamedGraph,
  dir: string,
  turns = new EventLoopTurns(),
): Promise<string> {
  const rules = await mineRules(graph, {}, turns);
  writeRules(dir, rules);
  const wrote = await writeVersionGraph(graph, dir);
  const count = Object.values(rules.rules).reduce((sum, list) => sum + list.length, 0);
  return `mined ${count} rule(s) for ${Object.keys(rules.rules).length} relation(s) in ${rules.seconds.toFixed(1)} s; ${wrote}`;
}
