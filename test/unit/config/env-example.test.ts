import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Variable names in `text` matched by `pattern`'s first group. */
function names(text: string, pattern: RegExp): Set<string> {
  return new Set([...text.matchAll(pattern)].map((m) => m[1] as string));
}

describe('.env.example', () => {
  it('names every variable config reads, and nothing else but compose and bench settings', () => {
    const configDir = path.join(ROOT, 'src', 'config');
    const source = fs
      .readdirSync(configDir)
      .map((file) => fs.readFileSync(path.join(configDir, file), 'utf8'))
      .join('\n');
    // read*(env, 'NAME', ...) and env.NAME
    const read = new Set([
      ...names(source, /read\w*\(\s*env,\s*'([A-Z][A-Z0-9_]*)'/g),
      ...names(source, /\benv\.([A-Z][A-Z0-9_]*)/g),
    ]);
    const example = names(
      fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8'),
      /^#? ?([A-Z][A-Z0-9_]*)=/gm,
    );
    const notRead = new Set(['NEO4J_HEAP', 'NEO4J_PAGECACHE', 'KGC_DATASETS']);
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((name) => !example.has(name))).toEqual([]);
    expect([...example].filter((name) => !read.has(name) && !notRead.has(name))).toEqual([]);
  });
});
