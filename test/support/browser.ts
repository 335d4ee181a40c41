import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Debian's chromium (scripts/setup.sh installs it); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the committed screenshots live; tests write there only with KGC_UPDATE_SCREENSHOTS=1. */
const SCREENSHOTS = path.resolve(__dirname, '../../docs/screenshots');
export const VIEWPORT = { width: 1280, height: 800 };

/** Launches the real browser; a missing one fails the test, never skips it. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the browser tests need it. Run \`bash scripts/setup.sh\` ` +
        "(as root it installs Debian's chromium) or set CHROMIUM_PATH.",
    );
  }
  // --no-sandbox: CI and the dev machines run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/**
 * A fresh browser context that lets only the API's own origin through: any other request is
 * recorded and aborted (the page must work offline, with no CDN), and so is every CSP violation.
 */
export async function isolatedPage(browser: Browser, origin: string) {
  const context: BrowserContext = await browser.newContext({ viewport: VIEWPORT });
  const foreign: string[] = [];
  const violations: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')) {
      return route.continue();
    }
    foreign.push(url);
    return route.abort();
  });
  const page: Page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
  return { context, page, foreign, violations };
}

/** Saves a screenshot of the page: into docs/screenshots when updating them, else a temp dir. */
export async function screenshot(page: Page, name: string, tmpDir: string): Promise<string> {
  const dir = process.env.KGC_UPDATE_SCREENSHOTS === '1' ? SCREENSHOTS : tmpDir;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Signs in through the form as a person would. */
export async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/admin`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The key the page keeps in session storage (tests have no DOM types: the code is a string). */
export async function storedSessionKey(page: Page): Promise<string | null> {
  return page.evaluate<string | null>('sessionStorage.getItem("kgc.apiKey")');
}

export async function documentCookie(page: Page): Promise<string> {
  return page.evaluate<string>('document.cookie');
}

/** Waits until the <img> with this alt text has loaded and has a size (the image rendered). */
export async function imageRendered(page: Page, alt: string): Promise<void> {
  await page.waitForFunction(
    `(() => { const el = document.querySelector('img[alt=${JSON.stringify(alt)}]');
      return el !== null && el.complete && el.naturalWidth > 0; })()`,
  );
}

/** The review page's current item heading ("head —relation→ tail"). */
export const CURRENT_ITEM = '[data-testid=item-detail] h2';

/**
 * Records, in the page, the time from each keydown (a capture listener, before the app's own)
 * to the first frame where the current item changed: performance.now, no test-side clocks.
 */
export async function watchKeyLatency(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__latency = [];
    document.addEventListener('keydown', () => {
      const t0 = performance.now();
      const before = document.querySelector(${JSON.stringify(CURRENT_ITEM)})?.textContent;
      const check = () => {
        const now = document.querySelector(${JSON.stringify(CURRENT_ITEM)})?.textContent;
        if (now !== before) window.__latency.push(performance.now() - t0);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    }, true);
  })()`);
}

/** The key latencies recorded since the last call (ms). */
export async function takeLatencies(page: Page): Promise<number[]> {
  return page.evaluate<number[]>('window.__latency.splice(0)');
}

/**
 * Signs in and opens the review queue of `relation`; returns ms from the pick to the first item
 * drawn (measured in the page).
 */
export async function openReviewQueue(
  page: Page,
  origin: string,
  key: string,
  relation: string,
): Promise<number> {
  await signIn(page, origin, key);
  await page.getByLabel('Relation').waitFor();
  await page.getByTestId('viewer').waitFor();
  // The relation list arrives after the select is drawn.
  await page.locator(`option[value=${JSON.stringify(relation)}]`).waitFor({ state: 'attached' });
  return page.evaluate<number>(`new Promise((resolve) => {
    const select = [...document.querySelectorAll('select')].find((s) =>
      [...s.options].some((o) => o.value === ${JSON.stringify(relation)}));
    const t0 = performance.now();
    select.value = ${JSON.stringify(relation)};
    select.dispatchEvent(new Event('change', { bubbles: true }));
    const check = () => {
      const title = document.querySelector(${JSON.stringify(CURRENT_ITEM)})?.textContent ?? '';
      if (title.includes(${JSON.stringify(`—${relation}→`)}))
        resolve(performance.now() - t0);
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  })`);
}
