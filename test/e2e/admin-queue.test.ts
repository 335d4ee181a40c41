/**
 * The review queue in the browser. Needs `reviewQueue`, `reviewStats` and `kgc suggest` (branch
 * `suggest`): run after merging it. The queue is filled the way an operator fills it: train a
 * version, then `kgc suggest`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Database } from '../../src/graph';
import { runRetrainJob } from '../../src/jobs';
import { createApiKey } from '../../src/server/api-keys';
import { startServer, StartedServer } from '../../src/server/start-server';
import {
  CURRENT_ITEM as CURRENT,
  isolatedPage,
  launchBrowser,
  openReviewQueue,
  screenshot,
  takeLatencies,
  watchKeyLatency,
} from '../support/browser';
import { runCli } from '../support/cli';
import { lifecycleFixture, TINY, writeClassGraph } from '../support/lifecycle';
import { MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig, testTarget } from '../support/test-database';

const admin = createApiKey('carol', 'admin');

/** "head —relation→ tail" of the current item. */
async function currentEdge(page: Page): Promise<{ head: string; tail: string }> {
  const text = (await page.locator(CURRENT).textContent()) ?? '';
  const match = /^(.+?) —.+?→ (.+)$/.exec(text.trim());
  if (!match) throw new Error(`no current item: "${text}"`);
  return { head: match[1]!, tail: match[2]! };
}

describe('the review queue in a real browser (needs reviewQueue and `kgc suggest`)', () => {
  let db: Database;
  let server: StartedServer;
  let browser: Browser;
  let origin: string;
  let relation: string;
  const fixture = lifecycleFixture();
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-shots-'));

  const edgeCount = async (head: string, tail: string) =>
    (
      await db.read((tx) =>
        tx.run(
          'MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r RETURN count(e) AS n',
          { h: head, t: tail, r: relation },
        ),
      )
    ).records[0]?.get('n') as number;
  const rejection = async (head: string, tail: string) =>
    (
      await db.read((tx) =>
        tx.run(
          'MATCH (p:RejectedPrediction {head: $h, relation: $r, tail: $t}) RETURN p.reason AS reason',
          { h: head, t: tail, r: relation },
        ),
      )
    ).records.map((r) => r.get('reason') as string | null);
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  beforeAll(async () => {
    db = testDatabase();
    const graph = await writeClassGraph(db, 120);
    relation = graph.filter.relations[1]!;
    await runRetrainJob(db, fixture.config, {
      scope: fixture.scope,
      store: fixture.store,
      filter: graph.filter,
      overrides: TINY,
    });
    const target = testTarget();
    const suggest = runCli(
      ['suggest', '--relation', relation],
      {
        NEO4J_URI: target.uri,
        NEO4J_USER: target.user,
        NEO4J_PASSWORD: target.password,
        KGC_MODEL_STORE: fixture.root,
        KGC_REGISTRY_SCOPE: fixture.scope,
      },
      180_000,
    );
    if (suggest.status !== 0) throw new Error(`kgc suggest failed:\n${suggest.stderr}`);
    server = await startServer(testServerConfig({ KGC_API_KEYS: admin.entry }), {
      migrationsDir: MIGRATIONS,
      follow: { store: fixture.store, scope: fixture.scope, pollMs: 200 },
    });
    origin = new URL(server.url).origin;
    // Neo4j plans each query text once per database start (its plan cache outlives API
    // servers): a review of the other direction pays that here, as the page's users find it paid
    // on a database that has been running. The measured list (tail direction) stays unread.
    const warm = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.key}` },
      body: JSON.stringify({
        query: `query($r: String!) {
          reviewQueue(relation: $r, direction: HEAD, first: 5) {
            items { head { id properties } reasons { kind } } pending
          }
          reviewStats(relation: $r) { pending }
        }`,
        variables: { r: relation },
      }),
    });
    expect(warm.status).toBe(200);
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await db?.close();
    fs.rmSync(fixture.root, { recursive: true, force: true });
  });

  const openQueue = (page: Page) => openReviewQueue(page, origin, admin.key, relation);

  // Speed (first render, key press to next item) is measured by bench/scale/review-page.ts at a
  // real graph's size; here the page's behaviour is asserted and the times are printed.
  it('renders a 1,000-item queue with the entities, probability and reasons', async () => {
    const { context, page, foreign, violations } = await isolatedPage(browser, origin);
    const ms = await openQueue(page);
    await expect(page.getByTestId('queue-counts').textContent()).resolves.toMatch(/^1000 pending/);
    await expect(page.getByTestId('probability').textContent()).resolves.toMatch(/^\d+\.\d%$/);
    await expect(page.locator('.entity').count()).resolves.toBe(2);
    await expect(page.locator('.reason code').first().textContent()).resolves.toContain('—');
    await screenshot(page, 'admin-queue', shots);
    console.log(`first render of the 1,000-item queue: ${ms.toFixed(0)} ms`);
    expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
    await context.close();
  });

  it('accepts with a, rejects with r and a reason, undoes with u: the edge enters and leaves Neo4j', async () => {
    const { context, page, foreign, violations } = await isolatedPage(browser, origin);
    await openQueue(page);
    await watchKeyLatency(page);

    const accepted = await currentEdge(page);
    expect(await edgeCount(accepted.head, accepted.tail)).toBe(0);
    await page.keyboard.press('a');
    await until(async () => (await edgeCount(accepted.head, accepted.tail)) === 1, 'the edge');
    expect(await currentEdge(page)).not.toEqual(accepted);
    await page.keyboard.press('u');
    await until(async () => (await edgeCount(accepted.head, accepted.tail)) === 0, 'the revert');
    await page
      .getByRole('status')
      .getByText(/Undone: accept/)
      .waitFor();

    const rejected = await currentEdge(page);
    await page.keyboard.press('r');
    await page.getByLabel('Why is it wrong?').fill('different classes');
    await page.keyboard.press('Enter');
    await until(
      async () => (await rejection(rejected.head, rejected.tail)).length === 1,
      'the rejection',
    );
    expect(await rejection(rejected.head, rejected.tail)).toEqual(['different classes']);
    expect(await edgeCount(rejected.head, rejected.tail)).toBe(0);
    await page.keyboard.press('u');
    await until(
      async () => (await rejection(rejected.head, rejected.tail)).length === 0,
      'the undo',
    );
    expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
    await context.close();
  });

  it('moves with j/k and decides, drawing the next item after every key press', async () => {
    const { context, page } = await isolatedPage(browser, origin);
    await openQueue(page);
    await watchKeyLatency(page);
    const press = async (key: string) => {
      const before = await page.locator(CURRENT).textContent();
      await page.keyboard.press(key);
      await page.waitForFunction(
        `document.querySelector(${JSON.stringify(CURRENT)})?.textContent !== ${JSON.stringify(before)}`,
      );
    };
    const first = await currentEdge(page);
    await press('j');
    expect(await currentEdge(page)).not.toEqual(first);
    await press('k');
    expect(await currentEdge(page)).toEqual(first);
    for (let i = 0; i < 10; i++) await press('j');
    for (let i = 0; i < 5; i++) await press('a');
    await page.waitForTimeout(200);
    const latencies = await takeLatencies(page);
    expect(latencies).toHaveLength(17);
    console.log(
      `key press to next item: max ${Math.max(...latencies).toFixed(1)} ms over 17 presses`,
    );
    await context.close();
  });

  it('moves past the last loaded item once the next page arrives (j pressed while it loads)', async () => {
    const { context, page } = await isolatedPage(browser, origin);
    // The pages after the first are held until the test lets them through, as a page of
    // reasons on a large graph takes seconds.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route) => {
      if (/"after":"/.test(route.request().postData() ?? '')) await released;
      await route.fallback();
    });
    await openQueue(page);
    const rows = page.getByTestId('queue-row');
    expect(await rows.count()).toBe(20);
    for (let i = 0; i < 19; i++) {
      const before = await page.locator(CURRENT).textContent();
      await page.keyboard.press('j');
      await until(async () => (await page.locator(CURRENT).textContent()) !== before, 'a move');
    }
    await expect(rows.nth(19).getAttribute('aria-current')).resolves.toBe('true');
    const last = await currentEdge(page);
    await page.keyboard.press('j');
    await page.waitForTimeout(300);
    expect(await currentEdge(page)).toEqual(last);
    release();
    await until(async () => (await rows.count()) > 20, 'the next page');
    await until(async () => (await rows.nth(20).getAttribute('aria-current')) === 'true', 'j');
    expect(await currentEdge(page)).not.toEqual(last);
    await context.close();
  });

  it('accepts a selection at once (acceptPredictions)', async () => {
    const { context, page } = await isolatedPage(browser, origin);
    await openQueue(page);
    const rows = page.getByTestId('queue-row');
    const picked = [];
    for (const i of [0, 1, 2]) {
      await rows.nth(i).locator('input[type=checkbox]').check();
      await rows.nth(i).click();
      picked.push(await currentEdge(page));
    }
    await page.getByRole('button', { name: 'Accept 3 selected (a)' }).click();
    for (const edge of picked) {
      await until(async () => (await edgeCount(edge.head, edge.tail)) === 1, 'the selection');
    }
    await context.close();
  });
});
