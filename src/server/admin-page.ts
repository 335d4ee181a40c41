import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from '../repo-root';

/** Where `npm run build` writes the review page's bundle (scripts/build-admin.ts). */
export const ADMIN_BUNDLE_DIR = path.join(REPO_ROOT, 'dist', 'admin');

/**
 * No inline script or style, nothing from another origin (the page works offline); diagrams are
 * shown as <img> from blob: URLs; the page may not be framed.
 */
export const ADMIN_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Built files carry a content hash in their names, so a browser may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cache: string;
}

/** The bundle, read once into memory: only these names are ever served (no path from a client reaches the disk). */
export type AdminPage = ReadonlyMap<string, Asset>;

/** Reads the bundle's files; null when it was not built. */
export function loadAdminPage(dir = ADMIN_BUNDLE_DIR): AdminPage | null {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    const file = path.join(dir, name);
    if (!type || !fs.statSync(file).isFile()) continue;
    const body = fs.readFileSync(file);
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    assets.set(name, { body, type, etag, cache: name === 'index.html' ? 'no-cache' : IMMUTABLE });
  }
  return assets;
}

/** Whether `path` belongs to the page: /admin, /admin/ and anything under it. */
export function isAdminPath(urlPath: string): boolean {
  return urlPath === '/admin' || urlPath.startsWith('/admin/');
}

function plain(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

/** Answers a request for the page (isAdminPath): the index, a built asset, or 404/405. */
export function serveAdminPage(
  page: AdminPage | null,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  urlPath: string,
): void {
  response.setHeader('content-security-policy', ADMIN_CSP);
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('referrer-policy', 'no-referrer');
  response.setHeader('x-frame-options', 'DENY');
  response.setHeader('cross-origin-opener-policy', 'same-origin');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    plain(response, 405, 'The admin page answers GET and HEAD only.');
    return;
  }
  if (!page) {
    plain(response, 404, 'The admin page is not built: run `npm run build` and restart.');
    return;
  }
  const name = urlPath === '/admin' || urlPath === '/admin/' ? 'index.html' : urlPath.slice(7);
  const asset = page.get(name);
  if (!asset) {
    plain(response, 404, 'Not found.');
    return;
  }
  response.setHeader('etag', asset.etag);
  response.setHeader('cache-control', asset.cache);
  if (request.headers['if-none-match'] === asset.etag) {
    response.writeHead(304).end();
    return;
  }
  response.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length });
  response.end(request.method === 'HEAD' ? undefined : asset.body);
}
