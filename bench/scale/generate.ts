/**
 * Writes a generated knowledge graph (bench/scale/scale-graph.ts) as train/valid/test.txt and
 * labels.tsv:
 *
 *   npx tsx bench/scale/generate.ts --out <dir> --entities 100000 --edges 1000000 [--seed 1]
 *     [--valid 0.05] [--test 0.05]
 */
import { parseArgs } from 'node:util';
import { writeScaleGraph } from './write-scale-graph';

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      entities: { type: 'string', default: '100000' },
      edges: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      valid: { type: 'string', default: '0.05' },
      test: { type: 'string', default: '0.05' },
    },
  });
  if (values.out === undefined) throw new Error('--out <dir> is required');
  const files = writeScaleGraph(values.out, {
    entities: count('--entities', values.entities),
    edges: count('--edges', values.edges),
    seed: count('--seed', values.seed),
    validFraction: fraction('--valid', values.valid),
    testFraction: fraction('--test', values.test),
  });
  const { train, valid, test } = files.triples;
  process.stdout.write(
    `${(train + valid + test).toLocaleString('en')} triples (train ${train.toLocaleString('en')}, ` +
      `valid ${valid.toLocaleString('en')}, test ${test.toLocaleString('en')}) over ` +
      `${files.entitiesWithEdges.toLocaleString('en')} entities in ${files.seconds.toFixed(1)} s: ` +
      `${values.out} (labels in ${files.labels})\n`,
  );
}

/** A whole number; `1e6` and `1_000_000` are accepted too. */
function count(flag: string, text: string | undefined): number {
  const value = Number((text ?? '').replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} needs a whole number`);
  return value;
}

function fraction(flag: string, text: string | undefined): number {
  const value = Number(text);
  if (!(value >= 0 && value < 0.5)) throw new Error(`${flag} needs a fraction below 0.5`);
  return value;
}

try {
  main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
