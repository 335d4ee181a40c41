import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { neo4jHomePath } from '../../../src/graph/local/neo4j-home';
import { REPO_ROOT } from '../../../src/repo-root';

// The cached home setup.sh assembled (CI runs setup first).
const cacheDir = process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc');
const realLib = path.join(neo4jHomePath(cacheDir), 'lib');
const scripts = path.join(REPO_ROOT, 'scripts', 'neo4j');

function verify(lib: string) {
  return spawnSync('bash', [path.join(scripts, 'verify-jars.sh'), lib], { encoding: 'utf8' });
}

/** A lib/ of links to the real jars (cheap to build), which a test then damages. */
function linkedLib(): string {
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-neo4j-lib-'));
  for (const jar of fs.readdirSync(realLib))
    fs.symlinkSync(path.join(realLib, jar), path.join(lib, jar));
  return lib;
}

describe('the Neo4j jars are checked against pinned sha256 sums', () => {
  const pinned = fs
    .readFileSync(path.join(scripts, 'jars.sha256'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/)[1] as string);
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('pins every jar of the fetched home, the bolt and server jars included', () => {
    expect(fs.readdirSync(realLib).sort()).toEqual([...pinned].sort());
    expect(pinned).toEqual(expect.arrayContaining([expect.stringMatching(/^neo4j-bolt-5\.26\./)]));
    const result = verify(realLib);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('fails naming a jar whose bytes changed, one that is missing and one that is not pinned', () => {
    const lib = linkedLib();
    dirs.push(lib);
    const corrupted = path.join(
      lib,
      'neo4j-bolt-' + pinned.find((j) => j.startsWith('neo4j-bolt-'))!.slice(11),
    );
    fs.rmSync(corrupted);
    fs.copyFileSync(fs.realpathSync(path.join(realLib, path.basename(corrupted))), corrupted);
    fs.appendFileSync(corrupted, Buffer.from([0]));
    fs.rmSync(path.join(lib, pinned[0] as string));
    fs.writeFileSync(path.join(lib, 'evil-1.0.jar'), 'not a jar');

    const result = verify(lib);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `${path.basename(corrupted)} (sha256 differs from the pinned one)`,
    );
    expect(result.stderr).toContain(`${pinned[0]} (missing)`);
    expect(result.stderr).toContain('evil-1.0.jar (not in the pinned list)');
  });

  it('makes fetch.sh fail and leave no home when a download does not match', () => {
    // A copy of scripts/neo4j whose list pins a different sum for one jar: Maven fetches (from
    // its local cache, no network) the real jar, which must then be refused.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-neo4j-scripts-'));
    dirs.push(copy);
    for (const name of ['fetch.sh', 'verify-jars.sh', 'pom.xml', 'jars.sha256']) {
      fs.copyFileSync(path.join(scripts, name), path.join(copy, name));
    }
    const list = fs.readFileSync(path.join(copy, 'jars.sha256'), 'utf8');
    const tampered = list.replace(/^[0-9a-f]{64}(?= {2}neo4j-server-)/m, '0'.repeat(64));
    expect(tampered).not.toBe(list);
    fs.writeFileSync(path.join(copy, 'jars.sha256'), tampered);
    const home = path.join(copy, 'home');

    const result = spawnSync('bash', [path.join(copy, 'fetch.sh'), home], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /neo4j-server-5\.26\.\d+\.jar \(sha256 differs from the pinned one\)/,
    );
    expect(fs.existsSync(home)).toBe(false);
    expect(fs.readdirSync(copy).filter((name) => name.startsWith('home.partial'))).toEqual([]);
  }, 180_000);
});
