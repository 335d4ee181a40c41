import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadScorer, ModelStore } from '../../../src/model';
import { writeModelVersion } from '../../support/model-version';

jest.setTimeout(120_000);

const WRITER = path.resolve(__dirname, '../../support/crash-writer.ts');

/** Starts the writer, lets it commit at least one version, then SIGKILLs it at a random moment. */
async function killMidWrite(root: string, template: string): Promise<number> {
  // tsx as a loader in this very process: a kill must reach the writer, not a wrapper.
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, template], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let committed = 0;
  let early: ((code: number | null) => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      early = (code: number | null) => reject(new Error(`the writer exited by itself (${code})`));
      child.once('exit', early);
      child.stdout.on('data', (chunk: Buffer) => {
        const first = committed === 0;
        committed += chunk.toString().split('\n').filter(Boolean).length;
        if (first) setTimeout(resolve, Math.random() * 200);
      });
    });
  } finally {
    if (early) child.removeListener('exit', early);
    child.kill('SIGKILL');
    await exited;
  }
  return committed;
}

describe('the model store under a writer killed at random moments', () => {
  it('holds only whole versions, and cleanStale removes what a killed writer left', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-store-crash-'));
    const source = new ModelStore(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-store-template-')));
    const template = source.dir(await writeModelVersion(source));
    let committed = 0;
    for (let i = 0; i < 4; i++) committed += await killMidWrite(root, template);
    const store = new ModelStore(root);
    const versions = store.list();
    // Every version printed as committed is there (the rename happened before the print).
    expect(versions.length).toBeGreaterThanOrEqual(committed);
    for (const version of versions) {
      expect(store.open(version).info.version).toBe(version);
      expect(loadScorer(store.dir(version)).entities).toEqual(['a', 'b', 'c']);
      const files = fs.readdirSync(template).filter((n) => n !== 'version.json');
      for (const name of files.filter((n) => fs.statSync(path.join(template, n)).isFile())) {
        expect(fs.readFileSync(path.join(store.dir(version), name))).toEqual(
          fs.readFileSync(path.join(template, name)),
        );
      }
    }
    const leftovers = fs.readdirSync(root).filter((n) => n.startsWith('.tmp-'));
    expect(store.cleanStale().sort()).toEqual(leftovers.sort());
    expect(fs.readdirSync(root).sort()).toEqual(versions);
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(source.root, { recursive: true, force: true });
    process.stdout.write(
      `crash test: ${versions.length} whole versions, ${leftovers.length} partial temp dirs cleaned\n`,
    );
  });
});
