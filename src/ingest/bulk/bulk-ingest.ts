import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseClientConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { Database, MigrationRunner, type LocalNeo4j } from '../../graph';
import { databaseContents } from '../../graph/entities/database-contents';
import { assertImportableFolder, runAdminImport } from '../../graph/local/admin-import';
import { ingestFile } from '../ingest-file';
import type { BulkPhase } from './bulk-progress';
import { assertEmptyDatabase, describeContents } from './empty-database';
import {
  throwIfStopped,
  writeImportFiles,
  type ImportFileCounts,
  type ImportFileOptions,
} from './import-files';

export interface BulkIngestOptions extends ImportFileOptions {
  /** The migrations folder: the schema (constraints, indexes) is applied after the import. */
  migrationsDir: string;
  client: DatabaseClientConfig;
  /** More neo4j-admin options (`--threads=4`, `--max-off-heap-memory=4g`). */
  adminArgs?: readonly string[];
  /** Recorded as the restarted server's owner (tests; see InstanceState.ownerPid). */
  serverOwnerPid?: number;
}

export interface BulkIngestSummary extends ImportFileCounts {
  files: string[];
  labels?: string;
  /** Wall time of each step, in seconds. */
  phases: Record<BulkPhase, number>;
  seconds: number;
}

/**
 * A first load into the EMPTY database of a local instance through `neo4j-admin database import
 * full`, Neo4j's fastest loader: validate every line and write the import files (nothing touched
 * yet), stop the server, import, start it again (also when the import failed), apply the
 * migrations (the import replaced the store, schema included), then set N-Triples literal
 * properties through the transactional path. The graph is the one `ingestFile` writes from the
 * same files.
 */
export async function bulkIngest(
  server: LocalNeo4j,
  options: BulkIngestOptions,
): Promise<BulkIngestSummary> {
  const started = Date.now();
  const phases: Record<BulkPhase, number> = {
    prepare: 0,
    stop: 0,
    import: 0,
    start: 0,
    migrate: 0,
    properties: 0,
  };
  let triples = 0;
  let lines = 0;
  const report = (phase: BulkPhase, fraction = 0, stage?: string) =>
    options.onProgress?.({
      phase,
      fraction,
      lines,
      triples,
      seconds: (Date.now() - started) / 1000,
      ...(stage !== undefined ? { stage } : {}),
    });
  const timed = async <T>(phase: BulkPhase, work: () => Promise<T>): Promise<T> => {
    const from = Date.now();
    try {
      return await work();
    } finally {
      phases[phase] += (Date.now() - from) / 1000;
    }
  };

  // Beside the store, on the disk that must hold the imported database anyway.
  const parent = path.join(server.dir, 'import');
  // Before any work: neo4j-admin could not read the files from there.
  assertImportableFolder(parent, "The local Neo4j's folder (KGC_STATE_DIR)");
  await assertEmptyDatabase(server, options.client);
  fs.mkdirSync(parent, { recursive: true });
  const work = fs.mkdtempSync(path.join(parent, 'kgc-bulk-'));
  try {
    const { files, counts } = await timed('prepare', () => writeImportFiles(work, options));
    ({ triples, lines } = counts);
    throwIfStopped(options.signal);
    // Again: something may have been written while the files were prepared.
    await assertEmptyDatabase(server, options.client);

    report('stop');
    await timed('stop', () => server.stop());
    report('import');
    let importError: unknown;
    await timed('import', () =>
      runAdminImport(server.adminCommand(), server.database, files, {
        reportFile: path.join(work, 'import.report'),
        extraArgs: options.adminArgs,
        onProgress: (stage, fraction) => report('import', fraction, stage),
        signal: options.signal,
      }).catch((error: unknown) => (importError = error)),
    );

    report('start');
    const target = await timed('start', () => server.start(options.serverOwnerPid)).catch(
      (error: unknown) => {
        throw importError === undefined ? error : restartFailed(importError, error);
      },
    );
    const db = new Database(target, options.client);
    try {
      report('migrate');
      await timed('migrate', () =>
        new MigrationRunner(db, { dir: options.migrationsDir }).migrate(),
      );
      if (importError !== undefined) throw await importFailed(importError, db);
      if (files.properties !== undefined) {
        report('properties');
        const literals = files.properties;
        await timed('properties', () => ingestFile(db, { file: literals, format: 'nt' }));
      }
    } finally {
      await db.close();
    }
    return {
      ...counts,
      files: [...options.files],
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      phases,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The import's error, saying what the restarted server now holds. */
async function importFailed(importError: unknown, db: Database): Promise<KgcError> {
  const message = importError instanceof Error ? importError.message : String(importError);
  const code = importError instanceof KgcError ? importError.code : ErrorCode.NEO4J_SETUP_FAILED;
  const contents = await databaseContents(db);
  const state =
    contents.nodes === 0 && contents.relationships === 0
      ? 'Neo4j runs again, with the database empty as before.'
      : `Neo4j runs again, but its database holds part of the import (${describeContents(contents)}).`;
  return new KgcError(code, `${message}\n${state}`, { cause: importError });
}

function restartFailed(importError: unknown, startError: unknown): KgcError {
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  return new KgcError(
    ErrorCode.NEO4J_SETUP_FAILED,
    `${message(importError)}\nStarting Neo4j again afterwards failed too: ${message(startError)}`,
    { cause: importError },
  );
}
