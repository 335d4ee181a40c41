import fs from 'node:fs';
import path from 'node:path';
import { datasetsRoot, takeDataOption } from '../datasets';

/** Where models trained earlier for these benches live, one folder per dataset name. */
export const DEFAULT_MODELS = '/work/bench-models';

export interface TrustArgs {
  /** [name, dataset folder, model folder] per dataset. */
  runs: { name: string; dataset: string; model: string }[];
  results: string;
}

function take(argv: string[], flag: string): { value: string | undefined; rest: string[] } {
  const i = argv.indexOf(flag);
  if (i < 0) return { value: undefined, rest: argv };
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
  return { value, rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

/**
 * `[--data <dir>] [--dataset NAME|DIR]... [--model <dir>] [--models <dir>] [--results <dir>]`:
 * each dataset is a folder under the datasets folder (or a path), its model `--model` (one
 * dataset only) or `<--models>/<NAME>` (default /work/bench-models/<NAME>); what the bench
 * computes goes under `--results` (default bench/trust/results, the committed outputs).
 */
export function trustArgs(argv: string[], defaults: string[], needs: string[]): TrustArgs {
  const { data, rest } = takeDataOption(argv);
  let args = rest;
  const names: string[] = [];
  for (;;) {
    const next = take(args, '--dataset');
    if (next.value === undefined) break;
    names.push(next.value);
    args = next.rest;
  }
  const model = take(args, '--model');
  const models = take(model.rest, '--models');
  const results = take(models.rest, '--results');
  if (results.rest.length > 0) throw new Error(`unknown arguments: ${results.rest.join(' ')}`);
  const chosen = names.length > 0 ? names : defaults;
  if (model.value !== undefined && chosen.length !== 1) {
    throw new Error(
      '--model names one model: pass exactly one --dataset with it (or use --models <dir>)',
    );
  }
  const runs = chosen.map((nameOrDir) => {
    const dataset = fs.existsSync(nameOrDir)
      ? path.resolve(nameOrDir)
      : path.join(datasetsRoot(data), nameOrDir);
    const name = path.basename(dataset);
    const missing = needs.filter((f) => !fs.existsSync(path.join(dataset, f)));
    if (missing.length > 0) throw new Error(`${dataset} lacks ${missing.join(', ')}`);
    const modelDir = path.resolve(model.value ?? path.join(models.value ?? DEFAULT_MODELS, name));
    if (!fs.existsSync(path.join(modelDir, 'manifest.json'))) {
      throw new Error(
        `No model in ${modelDir}: train one first, e.g. \`node bin/kgc.js train --dataset ${dataset} ` +
          `--out ${modelDir}\`, or pass --model <dir>.`,
      );
    }
    return { name, dataset, model: modelDir };
  });
  return { runs, results: path.resolve(results.value ?? path.join(__dirname, 'results')) };
}

export const f4 = (x: number | null | undefined) =>
  x === null || x === undefined ? 'n/a' : x.toFixed(4);
