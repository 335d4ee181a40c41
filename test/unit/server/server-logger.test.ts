import { spawn } from 'node:child_process';
import path from 'node:path';

const LOGGER = path.resolve(__dirname, '../../../src/server/logger.ts');

/** Runs `body` in a child process with `logger` = createServerLogger('info'); its stdout lines, timed. */
function runChild(
  body: string,
): Promise<{ lines: { at: number; msg: string }[]; code: number | null }> {
  const script = `const { createServerLogger } = require(${JSON.stringify(LOGGER)});
const logger = createServerLogger('info');
${body}`;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: { at: number; msg: string }[] = [];
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push({ at: Date.now() - started, msg: (JSON.parse(line) as { msg: string }).msg });
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ lines, code }));
  });
}

describe("kgc serve's buffered logger", () => {
  it('writes a quiet line within the flush interval, while the process goes on', async () => {
    const { lines, code } = await runChild(`
logger.info('first');
const started = Date.now();
setTimeout(() => { logger.info('second after ' + (Date.now() - started)); }, 1500);
setTimeout(() => process.exit(0), 3000);`);
    expect(code).toBe(0);
    expect(lines.map((l) => l.msg)[0]).toBe('first');
    // 'first' arrived long before the process ended (3 s): the timer flushed it.
    expect(lines[0]!.at).toBeLessThan(lines[1]!.at - 1000);
  }, 30_000);

  it('writes every buffered line when the process exits at once', async () => {
    const { lines, code } = await runChild(`
for (let i = 0; i < 1000; i++) logger.info('line ' + i);
process.exit(3);`);
    expect(code).toBe(3);
    expect(lines).toHaveLength(1000);
    expect(lines[999]!.msg).toBe('line 999');
  }, 30_000);
});
