/**
 * The family table the closing note asks for, from family-results.jsonl: per graph, the
 * latest run of the default, of each time budget and of the tuner (no overrides), with the date
 * it finished, so a row older than a rule change shows as such.
 *
 *   npx tsx bench/quality/family-summary.ts [--modes "default,time budget 15m,time budget 45m,tune 20m"]
 */
import fs from 'node:fs';
import path from 'node:path';
import { option } from './cli-option';

interface FamilyRow {
  graph: string;
  source: string;
  mode: string;
  size: { entities: number; relations: number; trainTriples: number };
  validMrr: number;
  testMrr: number;
  /** What the product serves from the model (rules as a second opinion); older rows lack it. */
  served?: { serves: string; validMrr: number; testMrr: number };
  epochs: number;
  stop?: string;
  seconds: number;
  finishedAt?: string;
}

const RESULTS = path.join(__dirname, 'family-results.jsonl');
const DEFAULT_MODES = ['default', 'time budget 15m', 'time budget 45m', 'tune 20m'];

const modes = option(process.argv.slice(2), 'modes')?.split(',') ?? DEFAULT_MODES;
const rows = fs
  .readFileSync(RESULTS, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as FamilyRow);

/** The file is in run order: the last row of a graph and mode is its latest. */
const latest = new Map<string, FamilyRow>();
for (const row of rows) latest.set(`${row.graph}\t${row.mode}`, row);

// Public graphs first (a member's source is itself), then the derived ones by source and size.
const graphs = [...new Map(rows.map((r) => [r.graph, r])).values()].sort(
  (a, b) =>
    Number(a.graph !== a.source) - Number(b.graph !== b.source) ||
    a.source.localeCompare(b.source) ||
    a.size.entities - b.size.entities,
);

const mrr = (x: number) => x.toFixed(4).replace(/^0/, '');
console.log(
  '| graph | entities / relations / train | run | valid MRR | test MRR | served: valid / test MRR | epochs (stop) | minutes | finished |',
);
console.log('|---|---|---|---:|---:|---|---|---:|---|');
for (const { graph, size } of graphs) {
  for (const mode of modes) {
    const row = latest.get(`${graph}\t${mode}`);
    if (!row) continue;
    const shape = `${size.entities} / ${size.relations} / ${size.trainTriples}`;
    const stop = row.stop ? ` (${row.stop})` : '';
    const finished = row.finishedAt?.slice(0, 16).replace('T', ' ') ?? '';
    const served = row.served
      ? `${mrr(row.served.validMrr)} / ${mrr(row.served.testMrr)} (${row.served.serves})`
      : '(not measured)';
    console.log(
      `| ${graph} | ${shape} | ${mode} | ${mrr(row.validMrr)} | ${mrr(row.testMrr)} | ${served} | ` +
        `${row.epochs}${stop} | ${(row.seconds / 60).toFixed(1)} | ${finished} |`,
    );
  }
}
