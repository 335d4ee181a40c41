import fs from 'node:fs';
import path from 'node:path';

/** The public benchmark splits the benchmarks know by name. */
export const DATASET_NAMES = [
  'FB15k-237',
  'WN18RR',
  'Kinship',
  'UMLS',
  'Nations',
  'NELL-995',
  'WN11',
  'FB13',
  'DebianPkg',
] as const;

const WHERE_TO_GET_THEM =
  'Pass --data <dir> or set KGC_DATASETS to a folder holding FB15k-237/, WN18RR/, Kinship/, ' +
  'UMLS/ and Nations/ (and NELL-995/, WN11/, FB13/, DebianPkg/ for the family by source), each with ' +
  'train.txt, valid.txt and test.txt: the public splits, as published with ConvE ' +
  '(https://github.com/TimDettmers/ConvE, data.tar.gz) or TuckER ' +
  '(https://github.com/ibalazevic/TuckER, data/), and OpenKE (benchmarks/, ids mapped to the names in its entity2id.txt and ' +
  "relation2id.txt) for WN11 and FB13; DebianPkg is Debian's package index (`apt-cache dumpavail`) as a graph, 2% each in valid and test.";

/** `--data <dir>` taken out of a program's arguments; the rest keeps its order. */
export function takeDataOption(argv: string[]): { data: string | undefined; rest: string[] } {
  const i = argv.indexOf('--data');
  if (i < 0) return { data: undefined, rest: argv };
  const data = argv[i + 1];
  if (data === undefined || data.startsWith('--')) throw new Error('--data needs a folder');
  return { data, rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

/**
 * The folder of the public datasets: `--data`, else KGC_DATASETS; anything else fails with where
 * to get them (the repository carries none).
 */
export function datasetsRoot(data: string | undefined): string {
  const root = data ?? process.env.KGC_DATASETS;
  if (root === undefined || root === '') throw new Error(`No dataset folder. ${WHERE_TO_GET_THEM}`);
  return path.resolve(root);
}

/**
 * A dataset folder: a known name (`FB15k-237`) under the datasets folder, or any other folder as
 * given. It must hold train.txt, valid.txt and test.txt.
 */
export function datasetDir(nameOrDir: string, data: string | undefined): string {
  const known = (DATASET_NAMES as readonly string[]).includes(nameOrDir);
  const dir = known ? path.join(datasetsRoot(data), nameOrDir) : path.resolve(nameOrDir);
  const missing = ['train.txt', 'valid.txt', 'test.txt'].filter(
    (file) => !fs.existsSync(path.join(dir, file)),
  );
  if (missing.length > 0) {
    throw new Error(`${dir} lacks ${missing.join(', ')}. ${WHERE_TO_GET_THEM}`);
  }
  return dir;
}
