import { ErrorCode, KgcError } from '../../errors';
import { adminImportArguments } from '../../graph/local/admin-import';
import type { ImportFiles } from './import-files';

/**
 * How to load import files written by `kgc ingest --bulk-csv-only` on a server kgc does not
 * manage: the neo4j-admin command line, then the schema and the literal properties.
 */
export function importInstructions(database: string, files: ImportFiles): string {
  const command = ['neo4j-admin', ...adminImportArguments(database, files)].map(shellWord);
  const steps = [
    'On the database server, with Neo4j stopped and the database empty (the import replaces it),',
    `copy the files there and run (with the paths they have there):\n  ${command.join(' ')}`,
    'then start Neo4j and apply the schema from here: `npx kgc migrate`.',
  ];
  if ([files.nodes, files.relationships].some((file) => file.includes(','))) {
    steps.splice(
      2,
      0,
      '(neo4j-admin reads a comma in a path as a separator between files: put them in a folder whose path has none.)',
    );
  }
  if (files.properties !== undefined) {
    steps.push(
      `Then set the N-Triples literal properties: \`npx kgc ingest ${shellWord(files.properties)}\`.`,
    );
  }
  return steps.join('\n');
}

/** `--bulk` against NEO4J_URI: kgc cannot stop someone else's server to import into it. */
export function remoteBulkRefused(database: string): KgcError {
  const files = { nodes: 'DIR/entities.csv', relationships: 'DIR/relationships.csv' };
  return new KgcError(
    ErrorCode.BAD_USER_INPUT,
    'NEO4J_URI names a server kgc does not manage: --bulk stops the local server for ' +
      "neo4j-admin's import, which it cannot do there. Either ingest without --bulk " +
      '(transactional, works on any server), or write the import files with ' +
      '`npx kgc ingest --bulk-csv-only DIR <files…>` and run the import on that server:\n' +
      importInstructions(database, files),
  );
}

/** Quoted for a POSIX shell when it holds anything but plain path characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
