import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/repo-root';
import { tail } from './server-process';

/**
 * `node bin/kgc.js train --dataset <dir> --epochs N --out <dir>` as a user runs it (the CLI's
 * own defaults: preset, calibration on valid.txt, types): its output goes to `work/train.log`.
 * Resolves with the wall-clock seconds; rejects with the log's tail when it fails.
 */
export async function trainWithCli(options: {
  dataset: string;
  epochs: number;
  out: string;
  work: string;
  /** The `kgc` entry point (default this repository's bin/kgc.js). */
  bin?: string;
  signal?: AbortSignal;
}): Promise<{ seconds: number; logFile: string }> {
  const logFile = path.join(options.work, 'train.log');
  const log = fs.openSync(logFile, 'a');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      options.bin ?? path.join(REPO_ROOT, 'bin', 'kgc.js'),
      'train',
      '--dataset',
      options.dataset,
      '--epochs',
      String(options.epochs),
      '--out',
      options.out,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        KGC_STATE_DIR: path.join(options.work, 'state'),
      },
      stdio: ['ignore', log, log],
    },
  );
  fs.closeSync(log);
  const stop = () => child.kill('SIGINT');
  options.signal?.addEventListener('abort', stop, { once: true });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  options.signal?.removeEventListener('abort', stop);
  if (code !== 0) throw new Error(`kgc train exited (${code}):\n${tail(logFile)}`);
  return { seconds: (Date.now() - started) / 1000, logFile };
}
