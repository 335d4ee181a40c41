/**
 * What a served version costs to load: `kgc serve`'s load path (`Scorer.loadAsync`) for one
 * version and then a second beside it (the moment of a hot swap), each followed by its first
 * top-10 (the warm-up that builds the 8-bit rows at scale). Prints load and first-query time,
 * the process's resident memory split into private (anonymous) pages and pages of the mapped
 * model files (shared with the page cache and other processes), and its peak.
 *
 *   npx tsx bench/scale/model-load.ts --model <dir> [--second <dir>]
 *
 * Run alone; each run is a fresh process (the peak is the process's).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Scorer } from '../../src/model/scorer';

function memoryMiB(): Record<'rss' | 'private' | 'mapped' | 'peak', number> {
  const fields = Object.fromEntries(
    fs
      .readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => {
        const [key, value] = line.split(':') as [string, string];
        return [key, Math.round(parseInt(value, 10) / 1024)];
      }),
  ) as Record<string, number>;
  return {
    rss: fields.VmRSS ?? 0,
    private: fields.RssAnon ?? 0,
    mapped: fields.RssFile ?? 0,
    peak: fields.VmHWM ?? 0,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { model: { type: 'string' }, second: { type: 'string' } },
  });
  if (!values.model) throw new Error('--model <dir> is required');
  const dirs = [values.model, values.second ?? values.model];
  const before = memoryMiB();
  const rows: string[] = [];
  const kept: Scorer[] = [];
  for (const [i, dir] of dirs.entries()) {
    const started = process.hrtime.bigint();
    const scorer = await Scorer.loadAsync(dir);
    const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
    const queried = process.hrtime.bigint();
    await scorer.topKBatchAsync([{ entity: 0, relation: 0 }], 10);
    const firstMs = Number(process.hrtime.bigint() - queried) / 1e6;
    kept.push(scorer);
    const m = memoryMiB();
    rows.push(
      `| ${i === 0 ? 'one version' : 'two (hot swap)'} | ${scorer.entities.length.toLocaleString('en-US')} | ` +
        `${loadMs.toFixed(0)} | ${firstMs.toFixed(0)} | ${m.rss - before.rss} | ${m.private - before.private} | ` +
        `${m.mapped - before.mapped} | ${m.peak} |`,
    );
  }
  console.log(
    '| resident | entities | load ms | first top-10 ms | RSS MiB | private MiB | mapped files MiB | peak RSS MiB |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`(${kept.length} versions held; memory above the process's own at start)`);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
