/**
 * Bundles the review page (src/admin-ui) into dist/admin with esbuild: one script, one
 * stylesheet, both named by content hash, and an index.html that loads them (no inline code:
 * the page's Content-Security-Policy allows none). Run by `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(__dirname, '..');
const outdir = path.join(root, 'dist', 'admin');
/** A file of its own (a data: URL would need `img-src data:` in the CSP); the browser asks for one. */
const ICON = 'icon-v1.svg';
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="4" cy="4" r="3" fill="#1d232a"/>' +
  '<circle cx="12" cy="12" r="3" fill="#1d232a"/><path d="M4 4 12 12" stroke="#1f7a3a" stroke-width="2" stroke-dasharray="2"/></svg>\n';

async function main(): Promise<void> {
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(root, 'src', 'admin-ui', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style)
    throw new Error(`esbuild wrote ${outputs.join(', ')}: no script or stylesheet`);
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>kgc review</title>
    <link rel="icon" href="/admin/${ICON}" />
    <link rel="stylesheet" href="/admin/${style}" />
    <script type="module" src="/admin/${script}"></script>
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
`;
  fs.writeFileSync(path.join(outdir, 'index.html'), html);
  fs.writeFileSync(path.join(outdir, ICON), ICON_SVG);
}

main().catch((error: unknown) => {
  console.error(`build-admin: ${(error as Error).message}`);
  process.exitCode = 1;
});
