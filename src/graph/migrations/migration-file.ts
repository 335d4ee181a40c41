import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ErrorCode, KgcError } from '../../errors';

/** One `V0001__short_description.cypher` file, as the neo4j-migrations tool names them. */
export interface MigrationFile {
  /** Zero-padded as in the file name, e.g. "0001". */
  version: string;
  description: string;
  file: string;
  statements: string[];
  /** CRC32 of the statements, as a decimal string. */
  checksum: string;
}

const NAME = /^V(\d+)__([A-Za-z0-9_]+)\.cypher$/;

/** Statements end with `;` at the end of a line; `//` comment lines are dropped. */
export function splitStatements(text: string): string[] {
  const lines = text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'));
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of lines) {
    current.push(line);
    if (line.trimEnd().endsWith(';')) {
      statements.push(current.join('\n').trim().replace(/;$/, '').trim());
      current = [];
    }
  }
  const rest = current.join('\n').trim();
  if (rest !== '') statements.push(rest);
  return statements.filter((statement) => statement !== '');
}

export function checksumOf(statements: string[]): string {
  let crc = 0;
  for (const statement of statements) crc = zlib.crc32(statement, crc);
  return String(crc);
}

/** Reads every migration in `dir`, sorted by version; a malformed name or duplicate is refused. */
export function loadMigrationFiles(dir: string): MigrationFile[] {
  if (!fs.existsSync(dir)) {
    throw new KgcError(ErrorCode.MIGRATION_INVALID, `Migrations folder ${dir} does not exist.`);
  }
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.cypher'));
  const migrations = files.map((name): MigrationFile => {
    const match = NAME.exec(name);
    if (!match) {
      throw new KgcError(
        ErrorCode.MIGRATION_INVALID,
        `Migration ${name} is misnamed: use V<number>__<description>.cypher, e.g. V0005__add_index.cypher.`,
      );
    }
    const statements = splitStatements(fs.readFileSync(path.join(dir, name), 'utf8'));
    if (statements.length === 0) {
      throw new KgcError(ErrorCode.MIGRATION_INVALID, `Migration ${name} holds no statement.`);
    }
    return {
      version: match[1] as string,
      description: (match[2] as string).replace(/_/g, ' '),
      file: name,
      statements,
      checksum: checksumOf(statements),
    };
  });
  migrations.sort((a, b) => Number(a.version) - Number(b.version));
  for (let i = 1; i < migrations.length; i++) {
    if (Number(migrations[i]?.version) === Number(migrations[i - 1]?.version)) {
      throw new KgcError(
        ErrorCode.MIGRATION_INVALID,
        `Migrations ${migrations[i - 1]?.file} and ${migrations[i]?.file} share a version.`,
      );
    }
  }
  return migrations;
}
