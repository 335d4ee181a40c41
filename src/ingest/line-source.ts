import fs from 'node:fs';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { ErrorCode, KgcError } from '../errors';

/** A line longer than the limit: its bytes were skipped, never held in memory. */
export interface OverlongLine {
  overlongBytes: number;
  limit: number;
}

/** A line's text, null when its bytes are not valid UTF-8, or an overlong line's length. */
export type SourceLine = string | null | OverlongLine;

/**
 * Longest line read, in bytes (without the line break). Far above any real triple (ids are at
 * most 1024 characters) yet small enough that a file of one endless line (a gzip bomb expands
 * 1000x) costs at most this much memory.
 */
export const DEFAULT_MAX_LINE_BYTES = 1 << 20;

export function isOverlong(line: SourceLine): line is OverlongLine {
  return line !== null && typeof line === 'object';
}

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
 * so memory stays bounded by the read buffer plus `maxLineBytes` whatever the file: a longer
 * line is skipped as it streams by and reported as an OverlongLine.
 */
export async function openLineSource(
  file: string,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): Promise<LineSource> {
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
      const lines = new LineSplitter(decoder, maxLineBytes);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          const out = lines.push(chunk);
          if (out.length > 0) yield out;
        }
      } catch (error) {
        throw readError(file, gzip, error);
      }
      const last = lines.end();
      if (last.length > 0) yield last;
    },
  };
}

/**
 * Cuts a byte stream into lines. The unfinished line is kept only while it is within the
 * limit; past it, its bytes are counted and dropped until its line break.
 */
class LineSplitter {
  private rest: Buffer = Buffer.alloc(0);
  /** Bytes of the overlong line being skipped; -1 when not skipping. */
  private skipped = -1;

  constructor(
    private readonly decoder: TextDecoder,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): SourceLine[] {
    const out: SourceLine[] = [];
    let data = chunk;
    if (this.skipped >= 0) {
      const end = data.indexOf(NEWLINE);
      if (end < 0) {
        this.skipped += data.length;
        return out;
      }
      out.push(this.overlong(this.skipped + end));
      this.skipped = -1;
      data = data.subarray(end + 1);
    } else if (this.rest.length > 0) {
      data = Buffer.concat([this.rest, data]);
      this.rest = Buffer.alloc(0);
    }
    const last = data.lastIndexOf(NEWLINE);
    if (last >= 0) {
      for (const line of splitLines(data.subarray(0, last), this.decoder)) {
        out.push(this.tooLong(line) ? this.overlong(Buffer.byteLength(line as string)) : line);
      }
    }
    const tail = data.subarray(last + 1);
    if (tail.length > this.maxLineBytes + 1) this.skipped = tail.length;
    else this.rest = Buffer.from(tail);
    return out;
  }

  end(): SourceLine[] {
    if (this.skipped >= 0) return [this.overlong(this.skipped)];
    if (this.rest.length === 0) return [];
    const lines = splitLines(this.rest, this.decoder);
    return lines.map((line) =>
      this.tooLong(line) ? this.overlong(Buffer.byteLength(line as string)) : line,
    );
  }

  /** Within a block, a line's byte length is at most 3 per UTF-16 unit: measure only past that. */
  private tooLong(line: SourceLine): boolean {
    return (
      typeof line === 'string' &&
      line.length * 3 > this.maxLineBytes &&
      Buffer.byteLength(line) > this.maxLineBytes
    );
  }

  private overlong(bytes: number): OverlongLine {
    return { overlongBytes: bytes, limit: this.maxLineBytes };
  }
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
