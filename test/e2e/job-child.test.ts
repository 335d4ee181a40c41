import { fork } from 'node:child_process';
import path from 'node:path';
import type { ChildMessage } from '../../src/jobs';

const JOB_CHILD = path.resolve(__dirname, '../../dist/cli/job-child.js');

/** Runs the built job child as `kgc worker` does, and collects what it tells the worker. */
function runChild(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; messages: ChildMessage[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = fork(JOB_CHILD, argv, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const messages: ChildMessage[] = [];
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('message', (message: ChildMessage) => messages.push(message));
    child.once('exit', (code) => resolve({ code, messages, stderr }));
  });
}

describe('the job child reports every failure to the worker instead of crashing', () => {
  it('a bad setting: a failed message with INVALID_CONFIG, exit 1, no stack trace', async () => {
    const result = await runChild(['{"trigger":"request"}'], { KGC_HTTP_PORT: 'not-a-port' });
    expect(result.code).toBe(1);
    expect(result.messages).toEqual([
      expect.objectContaining({ type: 'failed', code: 'INVALID_CONFIG' }),
    ]);
    expect(result.stderr).toMatch(/KGC_HTTP_PORT/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a malformed request: a failed message, exit 1, no stack trace', async () => {
    const result = await runChild(['{not json'], {});
    expect(result.code).toBe(1);
    expect(result.messages).toEqual([expect.objectContaining({ type: 'failed' })]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
