import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import type { DenseGraph } from './dense-graph';

/** One file of an export: its name in the folder and the triples (undefined: all of them). */
export interface TripleFilePart {
  name: string;
  indexes?: Int32Array;
}

/**
 * Writes an export's files all or nothing: each goes to a temporary file beside its target, is
 * fsynced, and only when every one is complete are they renamed into place (and the folder
 * fsynced). On any failure (ENOSPC, EIO...) the temporaries are removed and the targets are
 * untouched, so a reader never sees a half-written or mismatched train/valid/test set.
 * Returns the triple count per file name.
 */
export async function writeTripleFiles(
  dir: string,
  graph: DenseGraph,
  parts: readonly TripleFilePart[],
  onWritten?: (name: string, count: number) => void,
): Promise<Record<string, number>> {
  await fs.promises.mkdir(dir, { recursive: true });
  const tag = `${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  const temps = parts.map((part) => path.join(dir, `.${part.name}.${tag}.tmp`));
  const counts: Record<string, number> = {};
  try {
    for (const [i, part] of parts.entries()) {
      counts[part.name] = await writeTripleFile(temps[i] as string, graph, part.indexes);
      onWritten?.(part.name, counts[part.name] as number);
    }
    for (const [i, part] of parts.entries()) {
      await fs.promises.rename(temps[i] as string, path.join(dir, part.name));
    }
    await syncDir(dir);
  } catch (error) {
    await Promise.all(temps.map((temp) => fs.promises.rm(temp, { force: true })));
    throw writeError(dir, error);
  }
  return counts;
}

/**
 * Writes triples as `head<TAB>relation<TAB>tail` lines (the ingest TSV format, so an export can
 * be re-ingested), in blocks to keep write calls few, then fsyncs. Ids never hold tabs or line
 * breaks: ingest validation rejects them.
 */
async function writeTripleFile(
  file: string,
  graph: DenseGraph,
  indexes?: Int32Array,
): Promise<number> {
  const handle = await fs.promises.open(file, 'w');
  try {
    const count = indexes ? indexes.length : graph.heads.length;
    let block: string[] = [];
    for (let k = 0; k < count; k++) {
      const i = indexes ? (indexes[k] as number) : k;
      block.push(
        `${graph.entities[graph.heads[i] as number]}\t${graph.relationNames[graph.relations[i] as number]}\t${graph.entities[graph.tails[i] as number]}\n`,
      );
      if (block.length === 10_000) {
        await handle.write(block.join(''));
        block = [];
      }
    }
    if (block.length > 0) await handle.write(block.join(''));
    await handle.sync();
    return count;
  } finally {
    await handle.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function writeError(dir: string, error: unknown): KgcError {
  if (error instanceof KgcError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full: free space or export to another folder'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the folder is not writable'
        : (error as Error).message;
  return new KgcError(
    ErrorCode.EXPORT_WRITE_FAILED,
    `Export to ${dir} failed (${code ?? 'error'}): ${hint}. No export file was written or replaced.`,
    { cause: error },
  );
}
