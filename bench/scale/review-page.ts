/**
 * The review page at a real graph's size (issue 60 item 3): a model trained on DebianPkg (or any
 * dataset) serving a Neo4j that holds its train split, `kgc suggest`'s work for every relation
 * (both directions), then the admin page in Debian's Chromium: the time from picking the relation
 * with the most suggestions to its first item drawn, and from key presses (move with j, accept
 * with a) to the next item drawn, measured in the page.
 *
 *   npx tsx bench/scale/review-page.ts [--data <dir>] [--dataset DebianPkg] --model <dir> [--top 1000]
 *
 * The model folder is copied (its checkpoints left out); a folder without types.json gets the
 * types a version learns, from the train split (typed candidates, as the job's suggestions have);
 * the suggestions are written into the copy. Prints a table; the Neo4j and the copy live in a
 * temporary folder removed at the end (also on Ctrl-C or SIGTERM).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suggestVersion } from '../../src/jobs/suggest-version';
import {
  learnTypes,
  openSuggestions,
  readTypesFile,
  Scorer,
  writeTypesFile,
} from '../../src/model';
import { createApiKey } from '../../src/server/api-keys';
import {
  CURRENT_ITEM,
  isolatedPage,
  launchBrowser,
  openReviewQueue,
  takeLatencies,
  watchKeyLatency,
} from '../../test/support/browser';
import { ingestFiles, neo4jEnv, startBenchNeo4j } from '../api/harness/neo4j-fixture';
import { startApiProcess } from '../api/harness/server-process';
import { datasetDir, takeDataOption } from '../datasets';
import { readTripleFile } from '../../src/model/calibration/triple-file';
import { describeMachine } from '../ingest/machine';
import { option } from '../quality/cli-option';

const MOVES = 20;
const ACCEPTS = 5;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** The relation whose tail list is longest (the queue's default direction). */
function busiestRelation(dir: string): { relation: string; items: number } {
  const file = openSuggestions(dir);
  if (!file) throw new Error(`no suggestions were written in ${dir}`);
  let best = { relation: '', items: -1 };
  file.lists.forEach((list, i) => {
    const items = file.columns(i).heads.length;
    if (list.direction === 'tail' && items > best.items) best = { relation: list.relation, items };
  });
  return best;
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const dataset = datasetDir(option(rest, 'dataset') ?? 'DebianPkg', data);
  const modelDir = option(rest, 'model');
  if (!modelDir) throw new Error('--model <dir>: a model trained on the dataset');
  const top = Number(option(rest, 'top') ?? '1000');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-review-page-'));
  const dir = path.join(work, path.basename(path.resolve(modelDir)));
  fs.cpSync(modelDir, dir, {
    recursive: true,
    filter: (source) => path.basename(source) !== 'checkpoints',
  });
  const rows: [string, string][] = [];
  // Each step is shown as it is measured: a long run says where it is.
  const record = (row: [string, string]) => {
    rows.push(row);
    console.error(`[review-page] ${row[0]}: ${row[1]}`);
  };
  if (!readTypesFile(dir)) {
    // The train split in the model's ids (lines naming what the model lacks are skipped).
    const model = Scorer.load(dir);
    const train = readTripleFile(path.join(dataset, 'train.txt'), {
      entity: (id) => model.findEntity(id),
      relation: (name) => model.findRelation(name),
    }).ids;
    const column = (k: number) =>
      Uint32Array.from({ length: train.length / 3 }, (_, i) => train[3 * i + k] as number);
    writeTypesFile(
      dir,
      learnTypes({
        entityCount: model.entities.length,
        relations: model.relations,
        heads: column(0),
        relationIds: column(1),
        tails: column(2),
      }),
    );
  }
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const neo = await startBenchNeo4j(work);
  let server: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  const browser = await launchBrowser();
  try {
    const ingest = await ingestFiles(neo.db, [path.join(dataset, 'train.txt')], work);
    record(['edges in Neo4j (train split)', `${ingest.written} in ${ingest.seconds.toFixed(1)} s`]);
    const rss = process.memoryUsage().rss;
    const suggested = await suggestVersion(neo.db, dir, path.basename(dir), {
      perRelation: top,
      signal: stop.signal,
    });
    record([
      `suggestions, every relation, both directions (top ${top})`,
      `${suggested.suggestions} in ${suggested.seconds.toFixed(1)} s (${suggested.relations} relations; RSS ${(rss / 2 ** 20).toFixed(0)} -> ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`,
    ]);
    const { relation, items } = busiestRelation(dir);
    record(['the relation with the most suggestions', `${relation} (${items} as tails)`]);
    const admin = createApiKey('bench', 'admin');
    server = await startApiProcess({
      args: ['--model', dir],
      env: { ...neo4jEnv(neo.target), KGC_API_KEYS: admin.entry },
      work,
      readyTimeoutMs: 300_000,
    });
    const origin = new URL(server.base).origin;
    for (const visit of ['first visit', 'second visit']) {
      if (stop.signal.aborted) throw new Error('stopped');
      const { context, page, violations: errors } = await isolatedPage(browser, origin);
      // How long each of the page's own queue requests took (the browser's timing).
      const requests: Record<'first page' | 'counts' | 'next pages', number[]> = {
        'first page': [],
        counts: [],
        'next pages': [],
      };
      page.on('requestfinished', (request) => {
        const body = request.postData() ?? '';
        if (!body.includes('reviewQueue(')) return;
        const kind = body.includes('reviewStats')
          ? 'counts'
          : body.includes('"after":"')
            ? 'next pages'
            : 'first page';
        requests[kind].push(request.timing().responseEnd);
      });
      const first = await openReviewQueue(page, origin, admin.key, relation);
      record([`${visit}: pick the relation to its first item drawn`, `${first.toFixed(0)} ms`]);
      await watchKeyLatency(page);
      // The next item is awaited from here (the page's CSP refuses evaluated predicates); the
      // latency itself is measured in the page, from the keydown to the frame that drew it.
      const press = async (key: string) => {
        const before = await page.locator(CURRENT_ITEM).textContent();
        await page.keyboard.press(key);
        const deadline = Date.now() + 10_000;
        while ((await page.locator(CURRENT_ITEM).textContent()) === before) {
          if (Date.now() > deadline) {
            const shot = path.join(os.tmpdir(), 'review-page-stuck.png');
            await page.screenshot({ path: shot });
            const rows = await page.locator('ol.rows > li').count();
            throw new Error(
              `the key ${key} did not move past "${before}" within 10 s (${rows} rows listed; ` +
                `the page as it was: ${shot}; its errors: ${JSON.stringify(errors)}; its queue ` +
                `requests so far, ms: ${JSON.stringify(requests)})`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      for (let i = 0; i < MOVES; i++) await press('j');
      const moves = await takeLatencies(page);
      for (let i = 0; i < ACCEPTS; i++) await press('a');
      await page.waitForTimeout(200);
      const accepts = await takeLatencies(page);
      record([
        `${visit}: key press to the next item drawn, j (${moves.length}) / a (${accepts.length})`,
        `p50 ${percentile(moves, 50).toFixed(1)} / ${percentile(accepts, 50).toFixed(1)} ms, max ${Math.max(...moves).toFixed(1)} / ${Math.max(...accepts).toFixed(1)} ms`,
      ]);
      record([
        `${visit}: the page's queue requests (first page / counts / next pages)`,
        Object.values(requests)
          .map((ms) => (ms.length === 0 ? '-' : ms.map((v) => `${v.toFixed(0)} ms`).join(', ')))
          .join(' / '),
      ]);
      await context.close();
    }
    // The queue's pages over the API once the server is warm (items with their reasons).
    const page = async (first: number, after: string | null) => {
      const started = performance.now();
      const response = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.key}` },
        body: JSON.stringify({
          query: `query($r: String!, $first: Int!, $after: String) {
            reviewQueue(relation: $r, direction: TAIL, first: $first, after: $after) {
              items { head { id properties } tail { id properties } probability logit
                reasons { kind rule { text confidence } edges { head relation tail } similarity } }
              endCursor
            }
          }`,
          variables: { r: relation, first, after },
        }),
      });
      const body = (await response.json()) as {
        data?: { reviewQueue: { items: unknown[]; endCursor: string | null } };
        errors?: unknown;
      };
      if (!body.data) throw new Error(`reviewQueue failed: ${JSON.stringify(body.errors)}`);
      return { ms: performance.now() - started, ...body.data.reviewQueue };
    };
    const firstPage = await page(20, null);
    const nextPage = await page(100, firstPage.endCursor);
    record([
      'warm, over the API: the first 20 items, then the next 100 (with reasons)',
      `${firstPage.ms.toFixed(0)} ms, ${nextPage.ms.toFixed(0)} ms`,
    ]);
  } finally {
    await browser.close();
    await server?.stop();
    await neo.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const machine = describeMachine();
  console.log(`\nReview page on ${path.basename(dataset)}, ${JSON.stringify(machine)}\n`);
  console.log('| step | measured |\n|---|---|');
  for (const [step, value] of rows) console.log(`| ${step} | ${value} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
