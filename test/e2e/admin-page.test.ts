import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Database } from '../../src/graph';
import {
  markInterruptedRuns,
  pendingRetrainRequests,
  startTrainingRun,
  updateRunProgress,
} from '../../src/graph/registry';
import { ADMIN_CSP, loadAdminPage } from '../../src/server/admin-page';
import { createApiKey } from '../../src/server/api-keys';
import { startServer, StartedServer } from '../../src/server/start-server';
import {
  documentCookie,
  imageRendered,
  isolatedPage,
  launchBrowser,
  screenshot,
  signIn,
  storedSessionKey,
} from '../support/browser';
import { firstVersion } from '../support/lifecycle';
import { gql, MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

const admin = createApiKey('alice', 'admin');
const reader = createApiKey('bob', 'reader');

/** A raw GET: fetch would normalise `..` away before the server saw it. */
function rawGet(
  origin: string,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
) {
  const url = new URL(origin);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(
        { host: url.hostname, port: url.port, path: target, method, headers },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          );
        },
      );
      request.on('error', reject);
      request.end();
    },
  );
}

describe('the /admin review page in a real browser, against the real API and Neo4j', () => {
  let db: Database;
  let server: StartedServer;
  let browser: Browser;
  let origin: string;
  let fixture: Awaited<ReturnType<typeof firstVersion>>;
  let version: string;
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-shots-'));

  beforeAll(async () => {
    if (!loadAdminPage())
      throw new Error('The admin page is not built: run `npm run build` first.');
    db = testDatabase();
    fixture = await firstVersion(db);
    version = fixture.first.version!;
    server = await startServer(
      testServerConfig({ KGC_API_KEYS: `${admin.entry},${reader.entry}` }),
      {
        migrationsDir: MIGRATIONS,
        follow: { store: fixture.store, scope: fixture.scope, pollMs: 200 },
      },
    );
    origin = new URL(server.url).origin;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await db?.close();
    fs.rmSync(fixture?.root ?? shots, { recursive: true, force: true });
  });

  describe('serving the bundle', () => {
    it('serves the page with a strict CSP, the right types and caching, and 304 on a match', async () => {
      for (const target of ['/admin', '/admin/']) {
        const page = await rawGet(origin, target);
        expect(page.status).toBe(200);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.headers['content-security-policy']).toBe(ADMIN_CSP);
        expect(page.headers['x-content-type-options']).toBe('nosniff');
        expect(page.headers['cache-control']).toBe('no-cache');
        expect(page.body).not.toMatch(/<script>|<style>| style=/);
        const again = await rawGet(origin, target, { 'if-none-match': page.headers.etag! });
        expect(again.status).toBe(304);
      }
      expect(ADMIN_CSP).toContain("default-src 'self'");
      expect(ADMIN_CSP).not.toContain('unsafe');
      const index = (await rawGet(origin, '/admin')).body;
      const assets = [...index.matchAll(/"\/admin\/([\w-]+\.(js|css))"/g)];
      expect(assets.map((m) => m[2]).sort()).toEqual(['css', 'js']);
      for (const [, name, ext] of assets) {
        const asset = await rawGet(origin, `/admin/${name}`);
        expect(asset.status).toBe(200);
        expect(asset.headers['content-type']).toBe(
          ext === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        );
        expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      }
    });

    it.each([
      '/admin/../package.json',
      '/admin/..%2fpackage.json',
      '/admin/%2e%2e/%2e%2e/package.json',
      '/admin/..\\..\\package.json',
      '/admin//etc/passwd',
      '/admin/%2fetc%2fpasswd',
      '/admin/index.html/../../../package.json',
      '/admin/.',
    ])('refuses a path outside the bundle: %s', async (target) => {
      const answer = await rawGet(origin, target);
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain('"name": "kgc"');
      expect(answer.body).not.toContain('root:');
      expect(answer.headers['content-security-policy']).toBe(ADMIN_CSP);
    });

    it('answers other methods with 405, and HEAD without a body', async () => {
      const post = await rawGet(origin, '/admin', {}, 'POST');
      expect(post.status).toBe(405);
      expect(post.headers.allow).toBe('GET, HEAD');
      const head = await rawGet(origin, '/admin', {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
    });
  });

  describe('the API the page reads', () => {
    it('lists model versions with their diagrams as SVG text, for readers too, never the directory', async () => {
      const answer = await gql<{ modelVersions: Record<string, unknown>[] }>(
        server.url,
        '{ modelVersions { version status active testMrr metrics trainingCurveSvg reliabilitySvg } }',
        {},
        reader.key,
      );
      expect(answer.errors).toBeUndefined();
      const [v] = answer.data!.modelVersions;
      expect(v).toMatchObject({ version, status: 'active', active: true });
      expect(String(v!.trainingCurveSvg)).toMatch(/^<svg/);
      expect(String(v!.reliabilitySvg)).toMatch(/^<svg/);
      const dir = await gql(server.url, '{ modelVersions { dir } }', {}, reader.key);
      expect(dir.errors?.[0]?.message).toContain('Cannot query field "dir"');
      const viewer = await gql(server.url, '{ viewer { name role } }', {}, reader.key);
      expect(viewer.data).toEqual({ viewer: { name: 'bob', role: 'reader' } });
    });
  });

  describe('in the browser', () => {
    it('refuses a wrong key with a clear message and keeps nothing', async () => {
      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, 'kgc_not_a_key_0000');
      await expect(page.getByRole('alert').textContent({ timeout: 10_000 })).resolves.toContain(
        'This key was refused: The API key is not valid.',
      );
      expect(await storedSessionKey(page)).toBeNull();
      expect(await context.cookies()).toEqual([]);
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });

    it('signs an admin in: key in session storage only, the relations to pick from, admin controls', async () => {
      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, admin.key);
      await page.getByTestId('viewer').getByText('alice (admin)').waitFor();
      expect(await storedSessionKey(page)).toBe(admin.key);
      expect(await documentCookie(page)).toBe('');
      expect(await context.cookies()).toEqual([]);
      for (const relation of fixture.graph.filter.relations) {
        const option = page.getByLabel('Relation').locator(`option[value="${relation}"]`);
        await option.waitFor({ state: 'attached' });
        await expect(option.textContent()).resolves.toMatch(
          new RegExp(`^${relation} \\(\\d+ edges\\)$`),
        );
      }
      await expect(page.getByRole('button', { name: /^Accept/ }).count()).resolves.toBe(1);
      // A reload keeps the session (same tab); signing out forgets the key.
      await page.reload();
      await page.getByTestId('viewer').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await storedSessionKey(page)).toBeNull();
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });

    it('shows the decision log, newest first, with who and why', async () => {
      const relation = fixture.graph.filter.relations[1]!;
      const head = `${fixture.graph.prefix}:e1`;
      const found = await gql<{ missingLinks: { entity: { id: string } }[] }>(
        server.url,
        'query($e: String!, $r: String!) { missingLinks(entity: $e, relation: $r, k: 2) { entity { id } } }',
        { e: head, r: relation },
        admin.key,
      );
      const [first, second] = found.data!.missingLinks.map((p) => p.entity.id);
      const why = uniqueId('wrong class');
      await gql(
        server.url,
        'mutation($h: String!, $r: String!, $t: String!) { acceptPrediction(head: $h, relation: $r, tail: $t) { head } }',
        { h: head, r: relation, t: first },
        admin.key,
      );
      await gql(
        server.url,
        'mutation($h: String!, $r: String!, $t: String!, $why: String) { rejectPrediction(head: $h, relation: $r, tail: $t, reason: $why) { head } }',
        { h: head, r: relation, t: second, why },
        admin.key,
      );

      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, admin.key);
      await page.getByRole('button', { name: 'Decisions' }).click();
      const rows = page.getByTestId('decision');
      await rows.first().waitFor();
      await expect(rows.nth(0).textContent()).resolves.toMatch(
        new RegExp(`REJECT.*${second}.*alice.*${why}`),
      );
      await expect(rows.nth(1).textContent()).resolves.toMatch(
        new RegExp(`ACCEPT.*${first}.*alice`),
      );
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });

    it('shows model versions with metrics, the training curve and the reliability diagram as images', async () => {
      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, admin.key);
      await page.getByRole('button', { name: 'Model versions' }).click();
      const card = page.getByTestId('version').first();
      await card.waitFor();
      await expect(card.textContent()).resolves.toContain(version);
      await expect(card.locator('.badge.active').count()).resolves.toBe(1);
      await expect(card.locator('table.metrics td').first().textContent()).resolves.toMatch(
        // An MRR in [0, 1] with four decimals: the tiny test model can rank every edge first.
        /^(0\.\d{4}|1\.0000)$/,
      );
      for (const alt of [`training curve of ${version}`, `reliability diagram of ${version}`]) {
        const img = page.getByAltText(alt);
        await img.waitFor();
        expect(await img.getAttribute('src')).toMatch(/^blob:/);
        await imageRendered(page, alt);
      }
      // Shown as images, never injected: no SVG element in the page's DOM.
      expect(await page.locator('svg').count()).toBe(0);
      await screenshot(page, 'admin-versions', shots);
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });

    it("shows a training run's progress live and records a retraining request", async () => {
      const runId = uniqueId('run');
      await startTrainingRun(
        db,
        { id: runId, trigger: 'test', holder: 'admin-page test' },
        fixture.scope,
      );
      await updateRunProgress(db, runId, { phase: 'train', epoch: 3, epochs: 40, loss: 0.5 });
      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, admin.key);
      await page.getByRole('button', { name: 'Training runs' }).click();
      const running = page.getByTestId('training-run').filter({ hasText: 'running' });
      await running.getByText('3/40').waitFor();
      // The page polls: the next epoch shows up without a reload.
      await updateRunProgress(db, runId, { epoch: 17, loss: 0.25 });
      await running.getByText('17/40').waitFor({ timeout: 10_000 });
      await expect(running.locator('progress').getAttribute('value')).resolves.toBe(
        String(17 / 40),
      );
      await screenshot(page, 'admin-training', shots);
      await markInterruptedRuns(db, { ids: [runId], reason: 'test over' }, fixture.scope);

      const before = await pendingRetrainRequests(db, fixture.scope);
      await page.getByRole('button', { name: 'Request retraining' }).click();
      await page
        .getByRole('status')
        .getByText(/Retraining requested at/)
        .waitFor();
      expect(await pendingRetrainRequests(db, fixture.scope)).toBe(before + 1);
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });

    it("gives a reader's key the page read-only: no decisions, no undo, no retraining", async () => {
      const { context, page, foreign, violations } = await isolatedPage(browser, origin);
      await signIn(page, origin, reader.key);
      await page.getByTestId('viewer').getByText('bob (reader, read-only)').waitFor();
      await page.getByLabel('Relation').waitFor();
      await page.getByRole('button', { name: 'Model versions' }).click();
      await page.getByTestId('version').first().waitFor();
      for (const name of [
        /^Accept/,
        /^Reject/,
        /^Undo/,
        'Request retraining',
        'Decisions',
        'Training runs',
      ]) {
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      }
      await page.getByRole('button', { name: 'Queue' }).click();
      await page.getByLabel('Relation').waitFor();
      expect(await page.locator('input[type=checkbox]').count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Accept|^Reject|^Undo/ }).count()).toBe(0);
      expect({ foreign, violations }).toEqual({ foreign: [], violations: [] });
      await context.close();
    });
  });
});
