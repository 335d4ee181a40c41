import { EventLoopTurns } from '../../event-loop-turns';
import { mineRules } from './mine-rules';
import type { MiningGraph } from './mine-rules';
import { writeRules } from './rules-file';

/**
 * The retrain job's rule step: mines the version's snapshot of the graph and writes rules.json
 * into its directory. Returns a line for the job's log.
 */
export async function mineVersionRules(
  graph: MiningGraph,
  dir: string,
  turns = new EventLoopTurns(),
): Promise<string> {
  const rules = await mineRules(graph, {}, turns);
  writeRules(dir, rules);
  const count = Object.values(rules.rules).reduce((sum, list) => sum + list.length, 0);
  return `mined ${count} rule(s) for ${Object.keys(rules.rules).length} relation(s) in ${rules.seconds.toFixed(1)} s`;
}
