import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEnvFile } from '../../../src/cli/load-env-file';

describe('loadEnvFile', () => {
  const names = ['KGC_TEST_FROM_FILE', 'KGC_TEST_ALREADY_SET'];
  afterEach(() => names.forEach((name) => delete process.env[name]));

  it('adds what .env sets and never overrides the environment', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-env-'));
    fs.writeFileSync(
      path.join(dir, '.env'),
      '# a comment\nKGC_TEST_FROM_FILE=from-file\nKGC_TEST_ALREADY_SET=from-file\n',
    );
    process.env.KGC_TEST_ALREADY_SET = 'from-shell';
    const said = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    loadEnvFile(dir);
    // Quiet: stderr carries only the command's own lines.
    expect(said).not.toHaveBeenCalled();
    said.mockRestore();
    expect(process.env.KGC_TEST_FROM_FILE).toBe('from-file');
    expect(process.env.KGC_TEST_ALREADY_SET).toBe('from-shell');
    fs.rmSync(dir, { recursive: true });
  });

  it('is quiet without a .env file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-env-'));
    const said = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => loadEnvFile(dir)).not.toThrow();
    expect(said).not.toHaveBeenCalled();
    said.mockRestore();
    fs.rmSync(dir, { recursive: true });
  });
});
