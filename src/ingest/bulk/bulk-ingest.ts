import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseClientConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { Database, MigrationRunner, type LocalNeo4j } from '../../graph';
import { databaseContents } from '../../graph/entities/database-contents';
import {
  assertImportableFolder,
  runAdminImport,
  stopOrphanedImport,
} from '../../graph/local/admin-import';
import { ingestFile } from '../ingest-file';
import { isLoaderAlive, readBulkMarker, removeBulkMarker, writeBulkMarker } from './bulk-marker';
import type { BulkMarker } from './bulk-marker';
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
  /** What this load finished of an earlier one that was killed (its import was redone). */
  recovered?: string;
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
  fs.mkdirSync(parent, { recursive: true });
  const recovered = await takeOverInterrupted(server, parent, options);
  // A load killed during its import found the database empty: the import is redone over it.
  const emptyOrRedone = async () => {
    if (recovered === undefined) await assertEmptyDatabase(server, options.client);
  };
  await emptyOrRedone();
  const work = fs.mkdtempSync(path.join(parent, 'kgc-bulk-'));
  const marker: BulkMarker = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    phase: 'prepare',
    work,
  };
  const mark = (phase: BulkPhase, adminPid?: number) =>
    writeBulkMarker(parent, Object.assign(marker, { phase }, adminPid ? { adminPid } : {}));
  mark('prepare');
  try {
    const { files, counts } = await timed('prepare', () => writeImportFiles(work, options));
    ({ triples, lines } = counts);
    throwIfStopped(options.signal);
    // Again: something may have been written while the files were prepared.
    await emptyOrRedone();

    mark('stop');
    report('stop');
    await timed('stop', () => server.stop());
    mark('import');
    report('import');
    let importError: unknown;
    await timed('import', () =>
      runAdminImport(server.adminCommand(), server.database, files, {
        reportFile: path.join(work, 'import.report'),
        extraArgs: options.adminArgs,
        onProgress: (stage, fraction) => report('import', fraction, stage),
        signal: options.signal,
        onStart: (pid) => mark('import', pid),
      }).catch((error: unknown) => (importError = error)),
    );

    mark('start');
    report('start');
    const target = await timed('start', () => server.start(options.serverOwnerPid)).catch(
      (error: unknown) => {
        throw importError === undefined ? error : restartFailed(importError, error);
      },
    );
    const db = new Database(target, options.client);
    try {
      mark('migrate');
      report('migrate');
      await timed('migrate', () =>
        new MigrationRunner(db, { dir: options.migrationsDir }).migrate(),
      );
      if (importError !== undefined) throw await importFailed(importError, db);
      if (files.properties !== undefined) {
        mark('properties');
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
      ...(recovered !== undefined ? { recovered } : {}),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    removeBulkMarker(parent);
  }
}

/**
 * Finishes what a bulk load killed on this instance left (its marker): ends its orphaned
 * neo4j-admin, removes its files. Killed while the server was stopped for its import (the
 * database was empty then: checked just before), its import is redone by this load: returns
 * what happened. Killed after its import, its graph is in: the server is started, the
 * migrations applied, and this load refused (BAD_USER_INPUT) saying so. Killed before it
 * touched the server: nothing to finish. Another load still running: JOB_LOCKED.
 */
async function takeOverInterrupted(
  server: LocalNeo4j,
  parent: string,
  options: BulkIngestOptions,
): Promise<string | undefined> {
  const marker = readBulkMarker(parent);
  if (!marker) return undefined;
  if (marker.pid !== process.pid && isLoaderAlive(marker)) {
    throw new KgcError(
      ErrorCode.JOB_LOCKED,
      `Another bulk load (pid ${marker.pid}, started ${marker.startedAt}) is running on this ` +
        'instance: wait for it to end.',
    );
  }
  if (marker.adminPid !== undefined) await stopOrphanedImport(marker.adminPid);
  fs.rmSync(marker.work, { recursive: true, force: true });
  const earlier = `an earlier bulk load (pid ${marker.pid}, started ${marker.startedAt})`;
  if (marker.phase === 'stop' || marker.phase === 'import') {
    if (!server.connection()) {
      return `${earlier} was killed during its import (the database was empty): imported again`;
    }
    // Started again since by someone else: what it holds now is theirs to judge.
  }
  if (marker.phase === 'prepare' || marker.phase === 'stop' || marker.phase === 'import') {
    removeBulkMarker(parent);
    return undefined;
  }
  const target = await server.start(options.serverOwnerPid);
  const db = new Database(target, options.client);
  try {
    await new MigrationRunner(db, { dir: options.migrationsDir }).migrate();
  } finally {
    await db.close();
  }
  removeBulkMarker(parent);
  throw new KgcError(
    ErrorCode.BAD_USER_INPUT,
    `${earlier[0]?.toUpperCase()}${earlier.slice(1)} was killed after its import, in its ` +
      `${marker.phase} step: its graph is in the database, which is running again with the ` +
      'migrations applied; nothing was loaded now.' +
      (marker.phase === 'properties'
        ? ' Its N-Triples literal properties may be set in part: `npx kgc ingest <files…>` ' +
          '(without --bulk) sets them all.'
        : ''),
  );
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
