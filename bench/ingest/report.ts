import fs from 'node:fs';

/** One line of the ingest table: a step of one dataset's loads. */
export interface Row {
  dataset: string;
  step: string;
  lines: number;
  seconds: number;
  /** Lines (or edges) per second, formatted. */
  rate: string;
  note: string;
}

const NOTES_HEADING = '## Reading these numbers';

/** Prints the table and writes it, with the machine, above the hand-written notes of `file`. */
export function writeResults(file: string, rows: Row[], machine: Record<string, string>): void {
  const header = ['dataset', 'step', 'lines', 's', 'lines/s', 'note'];
  const cells = rows.map((r) => [
    r.dataset,
    r.step,
    r.lines.toLocaleString('en'),
    r.seconds.toFixed(2),
    r.rate,
    r.note,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c] as number)).join('  ');
  process.stdout.write(`${[line(header), ...cells.map(line)].join('\n')}\n`);
  const md = [
    '# Ingest / export benchmark',
    '',
    'Each dataset (train + valid + test in one file) loaded by each loader into its own fresh local',
    'Neo4j 5.26 (heap 1g, page cache 512m, the transaction budget 120 s: the defaults). Produced by',
    `\`npx tsx bench/ingest/run.ts\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    `| ${header.join(' | ')} |`,
    '|---|---|---:|---:|---:|---|',
    ...cells.map((r) => `| ${r.join(' | ')} |`),
    '',
    '## Machine',
    '',
    ...Object.entries(machine).map(([k, v]) => `- ${k}: ${v}`),
    '',
  ].join('\n');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const notes = previous.indexOf(NOTES_HEADING);
  fs.writeFileSync(file, notes >= 0 ? `${md}${previous.slice(notes)}` : md);
}
