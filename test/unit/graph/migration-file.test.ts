import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ErrorCode } from '../../../src/errors';
import {
  checksumOf,
  loadMigrationFiles,
  splitStatements,
} from '../../../src/graph/migrations/migration-file';

function tempDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-migrations-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('migration files', () => {
  it('splits statements at a trailing semicolon and drops comment lines', () => {
    const text =
      '// why\nCREATE INDEX a IF NOT EXISTS\nFOR (n:A) ON (n.x);\r\nCREATE INDEX b FOR (n:B) ON (n.y);\n';
    expect(splitStatements(text)).toEqual([
      'CREATE INDEX a IF NOT EXISTS\nFOR (n:A) ON (n.x)',
      'CREATE INDEX b FOR (n:B) ON (n.y)',
    ]);
  });

  it('checksums the statements with CRC32, chained over statements', () => {
    const expected = zlib.crc32('B', zlib.crc32('A'));
    expect(checksumOf(['A', 'B'])).toBe(String(expected));
    expect(checksumOf(['A', 'B'])).not.toBe(checksumOf(['A', 'C']));
  });

  it('loads files sorted by numeric version', () => {
    const dir = tempDir({
      'V0010__later.cypher': 'RETURN 10;\n',
      'V0002__first_one.cypher': 'RETURN 2;\n',
    });
    const files = loadMigrationFiles(dir);
    expect(files.map((f) => [f.version, f.description])).toEqual([
      ['0002', 'first one'],
      ['0010', 'later'],
    ]);
  });

  it('refuses a misnamed file, naming it', () => {
    const dir = tempDir({ 'V1_bad.cypher': 'RETURN 1;\n' });
    expect(() => loadMigrationFiles(dir)).toThrow(/V1_bad\.cypher is misnamed/);
  });

  it('refuses two files with one version', () => {
    const dir = tempDir({ 'V1__a.cypher': 'RETURN 1;\n', 'V0001__b.cypher': 'RETURN 1;\n' });
    expect(() => loadMigrationFiles(dir)).toThrow(
      expect.objectContaining({ code: ErrorCode.MIGRATION_INVALID }),
    );
  });

  it('ships the project migrations in a loadable state', () => {
    const files = loadMigrationFiles(path.resolve(__dirname, '../../../migrations'));
    expect(files[0]?.file).toBe('V0001__entity_id_unique.cypher');
    expect(files.every((f) => f.statements.length > 0)).toBe(true);
  });
});
