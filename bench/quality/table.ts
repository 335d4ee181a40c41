/**
 * Prints the markdown results table from results.jsonl (one line per run.ts run).
 *
 *   npx tsx bench/quality/table.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Row {
  name: string;
  dataset: string;
  preset: string;
  overrides: Record<string, unknown>;
  epochsRun: number;
  keptEpoch: number;
  validMrr?: number;
  test: { mrr: number; mr: number; hits1: number; hits3: number; hits10: number };
  seconds: number;
  conveMrr?: number;
  /** The resolved config the run trained with (what `default` meant at the time). */
  config: { d_r: number; batch_size: number; activation: string; inverse_mode: string };
}

const HIDDEN = new Set(['threads', 'epochs', 'evalEvery', 'patience']);

function settings(row: Row): string {
  const extra = Object.entries(row.overrides)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${String(v)}`);
  return [row.preset, ...extra].join(' ');
}

function resolved(row: Row): string {
  const c = row.config;
  return `${c.d_r} / ${c.batch_size} / ${c.activation} / ${c.inverse_mode}`;
}

const rows = readFileSync(join(__dirname, 'results.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);

const f3 = (x: number) => x.toFixed(3);
const lines = [
  '| run | dataset | settings | resolved d_r / batch / activation / inverse | epochs | kept | valid MRR | test MRR | MR | H@1 | H@3 | H@10 | s | vs ConvE |',
  '|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ...rows.map((r) => {
    const t = r.test;
    const vs =
      r.conveMrr === undefined
        ? ''
        : `${t.mrr >= r.conveMrr ? '+' : ''}${(t.mrr - r.conveMrr).toFixed(3)}`;
    return (
      `| ${r.name} | ${r.dataset} | ${settings(r)} | ${resolved(r)} | ${r.epochsRun} | ${r.keptEpoch} | ` +
      `${r.validMrr === undefined ? '' : f3(r.validMrr)} | ${f3(t.mrr)} | ${t.mr.toFixed(2)} | ` +
      `${f3(t.hits1)} | ${f3(t.hits3)} | ${f3(t.hits10)} | ${Math.round(r.seconds)} | ${vs} |`
    );
  }),
];
process.stdout.write(lines.join('\n') + '\n');
