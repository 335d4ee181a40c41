/**
 * Test metrics of a saved model split by direction (tail queries vs head queries through the
 * reverse relation), to tell a weak inverse-relation setting from a weak model.
 *
 *   npx tsx bench/quality/directions.ts [--data <dir>] <modelDir> <dataset> [valid|test]
 *
 * `<dataset>`: a name under --data (or KGC_DATASETS), or a folder.
 */
import { evaluate, Split } from '../../src/model';
import { datasetDir, takeDataOption } from '../datasets';

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const [modelDir, dataset, split = 'test'] = rest;
  if (!modelDir || !dataset)
    throw new Error('usage: directions.ts [--data <dir>] <modelDir> <dataset> [split]');
  const m = await evaluate(modelDir, { dir: datasetDir(dataset, data) }, split as Split, 1);
  for (const [label, r] of [
    ['overall', m.overall],
    ['tail', m.tail],
    ['head', m.head],
  ] as const) {
    process.stdout.write(
      `${label.padEnd(8)} MRR ${r.mrr.toFixed(4)} MR ${r.mr.toFixed(2)} H@1 ${r.hits1.toFixed(3)} ` +
        `H@3 ${r.hits3.toFixed(3)} H@10 ${r.hits10.toFixed(3)} (${r.count})\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
