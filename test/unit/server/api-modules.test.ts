import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/repo-root';

describe('the API process', () => {
  it('does not load vega (only the retraining job draws training curves)', () => {
    // The compiled server (dist/, built by setup), in a fresh process: jest's own module
    // registry would hide what a real `require` loads.
    const entry = path.join(REPO_ROOT, 'dist', 'server', 'start-server.js');
    const result = spawnSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(entry)});
         const loaded = Object.keys(require.cache);
         console.log(JSON.stringify({ all: loaded.length, vega: loaded.filter((f) => /node_modules[\\\\/]vega/.test(f)) }));`,
      ],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    const { all, vega } = JSON.parse(result.stdout) as { all: number; vega: string[] };
    expect(all).toBeGreaterThan(100);
    expect(vega).toEqual([]);
  });
});
