import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setInitialPassword } from '../../../src/graph/local/initial-password';
import { findJava } from '../../../src/graph/local/java-runtime';
import { renderNeo4jConf } from '../../../src/graph/local/neo4j-conf';
import { neo4jHomePath } from '../../../src/graph/local/neo4j-home';

const cacheDir = process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc');

/** Every command line on the machine, as `ps` would show it to any local user. */
function commandLines(): string[] {
  return fs.readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      return [fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ')];
    } catch {
      return [];
    }
  });
}

/** Neo4j's stored credential: SHA-256 over salt + password, then rehashed, 1024 rounds in all. */
function neo4jHash(password: string, saltHex: string): string {
  let hash = crypto
    .createHash('sha256')
    .update(Buffer.from(saltHex, 'hex'))
    .update(password)
    .digest();
  for (let i = 1; i < 1024; i++) hash = crypto.createHash('sha256').update(hash).digest();
  return hash.toString('hex');
}

describe('the local server initial password', () => {
  it('is set through neo4j-admin without appearing on any command line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-initial-password-'));
    fs.mkdirSync(path.join(dir, 'conf'));
    const conf = renderNeo4jConf({ dir, boltPort: 7999, heap: '64m', pageCache: '8m' });
    fs.writeFileSync(path.join(dir, 'conf', 'neo4j.conf'), conf);
    const home = neo4jHomePath(cacheDir);
    const env = { ...process.env, NEO4J_HOME: home, NEO4J_CONF: path.join(dir, 'conf') };
    const password = crypto.randomBytes(18).toString('hex');

    const seen: string[] = [];
    let samples = 0;
    const watcher = setInterval(() => {
      samples++;
      seen.push(...commandLines().filter((line) => line.includes(password)));
    }, 25);
    try {
      await setInitialPassword(
        { java: findJava(undefined), classpath: `${path.join(home, 'lib')}/*`, env },
        dir,
        password,
      );
    } finally {
      clearInterval(watcher);
    }
    expect(samples).toBeGreaterThan(10);
    expect(seen).toEqual([]);

    // neo4j-admin stored the password itself (not the argument file's name), and the file is gone.
    const authIni = fs.readFileSync(path.join(dir, 'data', 'dbms', 'auth.ini'), 'utf8');
    const [, hash, salt] = /^neo4j:SHA-256,([0-9a-f]+),([0-9a-f]+),1024:/.exec(authIni) ?? [];
    expect(neo4jHash(password, salt as string)).toBe(hash);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('.admin-'))).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
