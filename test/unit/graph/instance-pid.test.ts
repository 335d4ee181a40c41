import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalNeo4j } from '../../../src/graph/local/local-neo4j';
import { writeState } from '../../../src/graph/local/instance-state';
import { isProcessAlive } from '../../../src/process-alive';
import type { InstanceState } from '../../../src/graph/local/instance-state';
import { processStartTime } from '../../../src/graph/local/process-identity';

/** An instance folder whose state.json (and run/neo4j.pid) point at processes this test chose. */
function fakeInstance(state: Partial<InstanceState> & { pid: number }, serverPid?: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-fake-neo4j-'));
  writeState(dir, {
    boltPort: 1,
    startedAt: new Date().toISOString(),
    neo4jVersion: '5.26.0',
    ...state,
  });
  fs.writeFileSync(path.join(dir, 'credentials.json'), '{"user":"neo4j","password":"x"}\n');
  if (serverPid !== undefined) {
    fs.mkdirSync(path.join(dir, 'run'));
    fs.writeFileSync(path.join(dir, 'run', 'neo4j.pid'), `${serverPid}\n`);
  }
  const neo4j = new LocalNeo4j({
    dir,
    cacheDir: dir,
    javaHome: undefined,
    boltPort: 0,
    heap: '64m',
    pageCache: '8m',
    database: 'neo4j',
  });
  return { dir, neo4j };
}

describe('a recorded PID is checked before it is trusted or signalled', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

  it('reads a start time that tells this process from others', () => {
    const mine = processStartTime(process.pid);
    expect(mine).toMatch(/\S/);
    expect(processStartTime(process.pid)).toBe(mine);
    expect(processStartTime(2 ** 22 + 1)).toBeUndefined();
  });

  it('does not take a reused PID (the test process itself) for Neo4j, nor kill it', async () => {
    // A state whose PID now belongs to an unrelated live process: this one. Its start time
    // differs from the one recorded, and run/neo4j.pid names it too.
    const { dir, neo4j } = fakeInstance({ pid: process.pid, pidStartTime: '1' }, process.pid);
    expect(neo4j.connection()).toBeUndefined();
    await expect(neo4j.status()).resolves.toMatchObject({ running: false });
    await expect(neo4j.stop(1000)).resolves.toBe(false);
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
  });

  it('does not trust a state from before start times were recorded unless it is the bootloader', async () => {
    const { neo4j } = fakeInstance({ pid: process.pid }, process.pid);
    expect(neo4j.connection()).toBeUndefined();
    await expect(neo4j.stop(1000)).resolves.toBe(false);
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it('still stops the process it recorded (start time matching)', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid as number;
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const { neo4j } = fakeInstance({ pid, pidStartTime: processStartTime(pid) });
    expect(neo4j.connection()).toBeDefined();
    await expect(neo4j.stop(5000)).resolves.toBe(true);
    await expect(exited).resolves.toBe('SIGTERM');
  });
});
