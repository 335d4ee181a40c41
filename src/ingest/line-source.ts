import fs from 'node:fs';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { ErrorCode, KgcError } from '../errors';

/** A line's text, or null when its bytes are not valid UTF-8. */
export type SourceLine = string | null;

export interface LineSource {
  /** Bytes on disk (compressed size for gzip): the denominator of progress. */
  size: number;
  gzip: boolean;
  /** Lines in order, in chunks; `bytesRead()` says how far into the file the reader is. */
  chunks(): AsyncGenerator<SourceLine[]>;
  bytesRead(): number;
}

const NEWLINE = 0x0a;

/**
 * Opens a triple file for streaming: checks it exists and is readable (a clear FILE_NOT_FOUND
 * otherwise), detects gzip by its magic bytes (not the name), and yields lines a chunk at a time
 * so memory stays bounded by the read buffer whatever the file size.
 */
export async function openLineSource(file: string): Promise<LineSource> {
  const size = await checkReadable(file);
  const gzip = hasGzipMagic(file);
  let read = 0;
  return {
    size,
    gzip,
    bytesRead: () => read,
    async *chunks() {
      read = 0;
      const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
      raw.on('data', (chunk) => (read += chunk.length));
      const stream = gzip ? raw.pipe(createGunzip()) : raw;
      if (gzip) raw.on('error', (error) => stream.destroy(error));
      const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
      let rest: Buffer = Buffer.alloc(0);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
          const last = data.lastIndexOf(NEWLINE);
          if (last < 0) {
            rest = data;
            continue;
          }
          rest = Buffer.from(data.subarray(last + 1));
          yield splitLines(data.subarray(0, last), decoder);
        }
      } catch (error) {
        throw readError(file, gzip, error);
      }
      if (rest.length > 0) yield splitLines(rest, decoder);
    },
  };
}

/** Decodes the whole block at once (fast path) and falls back to line by line on bad bytes. */
function splitLines(block: Buffer, decoder: TextDecoder): SourceLine[] {
  try {
    return decoder.decode(block).split('\n').map(stripCr);
  } catch {
    const lines: SourceLine[] = [];
    let start = 0;
    for (;;) {
      const end = block.indexOf(NEWLINE, start);
      const line = block.subarray(start, end < 0 ? block.length : end);
      try {
        lines.push(stripCr(decoder.decode(line)));
      } catch {
        lines.push(null);
      }
      if (end < 0) return lines;
      start = end + 1;
    }
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

async function checkReadable(file: string): Promise<number> {
  try {
    const stat = await fs.promises.stat(file);
    if (stat.isDirectory())
      throw new KgcError(ErrorCode.FILE_NOT_FOUND, `${file} is a directory, not a triple file.`);
    await fs.promises.access(file, fs.constants.R_OK);
    return stat.size;
  } catch (error) {
    if (error instanceof KgcError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KgcError(ErrorCode.FILE_NOT_FOUND, `No such file: ${file}.`);
    throw new KgcError(
      ErrorCode.FILE_NOT_FOUND,
      `Cannot read ${file} (${code ?? 'error'}): check its permissions.`,
    );
  }
}

function hasGzipMagic(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const n = fs.readSync(fd, head, 0, 2, 0);
    return n === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

function readError(file: string, gzip: boolean, error: unknown): KgcError {
  if (error instanceof KgcError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (gzip) {
    return new KgcError(ErrorCode.INGEST_INVALID_INPUT, `${file}: corrupt gzip data (${detail}).`);
  }
  return new KgcError(ErrorCode.FILE_NOT_FOUND, `Cannot read ${file}: ${detail}.`);
}
