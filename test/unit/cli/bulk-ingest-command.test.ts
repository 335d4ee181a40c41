import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBulkIngest } from '../../../src/cli/commands/bulk-ingest';
import { loadConfig } from '../../../src/config';
import { ErrorCode } from '../../../src/errors';

describe('kgc ingest --bulk against NEO4J_URI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bulk-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const remote = loadConfig({
    NEO4J_URI: 'neo4j+s://graph.example.com',
    NEO4J_PASSWORD: 'secret',
    NEO4J_DATABASE: 'kg',
  });
  const columns = { head: 'head', relation: 'relation', tail: 'tail' };
  const file = path.join(dir, 'triples.tsv');
  fs.writeFileSync(file, 'a\tr\tb\nb\tr\tc\n');

  it('refuses, saying how to import on that server', async () => {
    const lines: string[] = [];
    const out = { info: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };
    const listeners = process.listenerCount('SIGINT');
    const refused = runBulkIngest(remote, { files: [file], columns }, out);
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
    await expect(refused).rejects.toThrow(
      /--bulk-csv-only DIR[\s\S]*neo4j-admin database import full kg --nodes=Entity=DIR\/entities\.csv/,
    );
    expect(lines).toEqual([]);
    expect(process.listenerCount('SIGINT')).toBe(listeners);
  });

  it('--bulk-csv-only writes the files and prints the command for that server', async () => {
    const lines: string[] = [];
    const out = { info: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };
    const csv = path.join(dir, 'csv');
    await runBulkIngest(remote, { files: [file], columns, csvOnly: csv }, out);
    expect(fs.readdirSync(csv).sort()).toEqual(['entities.csv', 'relationships.csv']);
    const text = lines.join('\n');
    expect(text).toMatch(/relationships 2 \(repeated lines collapsed 0\), entities 3, relations 1/);
    expect(text).toContain(
      `neo4j-admin database import full kg --nodes=Entity=${csv}/entities.csv ` +
        `--relationships=${csv}/relationships.csv --id-type=integer`,
    );
    expect(text).toContain('npx kgc migrate');
  });
});
