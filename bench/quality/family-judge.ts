/**
 * Leave-one-source-out judgment of a rule, from family-results.jsonl: the rule's runs against
 * the alternative's on the same graphs, by validation MRR only, grouped by the knowledge base
 * each graph comes from (family.ts `SOURCES`: the samples of one source count as one source).
 *
 *   npx tsx bench/quality/family-judge.ts --rule 'default {"loss":"softmax"}' --alternative default
 *     [--chosen-on Freebase,WordNet]
 *
 * For each source S held out: the rule's mean gain on the other sources decides whether a
 * chooser that never saw S would adopt it, and S's own mean gain says whether that choice helps
 * S. The verdict keeps the rule only when the sources that did not choose it gain on average
 * and most of them gain (with --chosen-on, the sources that chose it are left out of the
 * verdict; without it, every source is judged by a choice made on the others).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sourceOf } from './family';
import { option } from './cli-option';

interface Row {
  graph: string;
  mode: string;
  validMrr: number;
}

const RESULTS = path.join(__dirname, 'family-results.jsonl');

/**
 * The validation MRR of a mode's latest run per graph (the file is in run order; an older run
 * may predate a change of the default). Seeds are modes of their own (`default {"seed":1}`).
 */
function byGraph(rows: Row[], mode: string): Map<string, number> {
  const latest = new Map<string, number>();
  for (const row of rows) {
    if (row.mode === mode && typeof row.validMrr === 'number') latest.set(row.graph, row.validMrr);
  }
  return latest;
}

function mean(values: number[]): number {
  return values.reduce((sum, x) => sum + x, 0) / values.length;
}

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;

function main(): void {
  const argv = process.argv.slice(2);
  const rule = option(argv, 'rule');
  const alternative = option(argv, 'alternative');
  if (!rule || !alternative) throw new Error('--rule <mode> and --alternative <mode> are needed');
  const chosenOn = new Set(option(argv, 'chosen-on')?.split(',') ?? []);
  const rows = fs
    .readFileSync(RESULTS, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
  const withRule = byGraph(rows, rule);
  const without = byGraph(rows, alternative);
  const gains = new Map<string, { graph: string; gain: number }[]>();
  console.log(`| graph | source | ${rule} | ${alternative} | gain |`);
  console.log('|---|---|---:|---:|---:|');
  for (const [graph, mrr] of [...withRule].sort()) {
    const other = without.get(graph);
    if (other === undefined) continue;
    const source = sourceOf(graph);
    gains.set(source, [...(gains.get(source) ?? []), { graph, gain: mrr - other }]);
    console.log(
      `| ${graph} | ${source} | ${mrr.toFixed(4)} | ${other.toFixed(4)} | ${signed(mrr - other)} |`,
    );
  }
  const sourceGain = new Map([...gains].map(([s, list]) => [s, mean(list.map((g) => g.gain))]));
  if (sourceGain.size < 2) throw new Error('Leave-one-source-out needs runs on two sources');
  console.log(
    '\n| source held out | graphs | gain on it | gain on the others | adopted without it |',
  );
  console.log('|---|---:|---:|---:|---|');
  for (const [source, gain] of sourceGain) {
    const others = mean([...sourceGain].filter(([s]) => s !== source).map(([, g]) => g));
    const adopted = others > 0;
    console.log(
      `| ${source} | ${gains.get(source)?.length} | ${signed(gain)} | ${signed(others)} | ` +
        `${adopted ? 'yes' : 'no'}${adopted === gain > 0 ? '' : ' (wrong for it)'} |`,
    );
  }
  const judged = [...sourceGain].filter(([s]) => !chosenOn.has(s));
  const helped = judged.filter(([, g]) => g > 0).length;
  const meanGain = mean(judged.map(([, g]) => g));
  const kept = judged.length > 0 && meanGain > 0 && helped * 2 > judged.length;
  console.log(
    `\nVerdict: ${kept ? 'keep' : 'drop'} the rule: ${helped} of ${judged.length} source(s)` +
      `${chosenOn.size > 0 ? ' that did not choose it' : ''} gain, mean ${signed(meanGain)}.`,
  );
}

main();
