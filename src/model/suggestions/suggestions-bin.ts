import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../../process-alive';
import { ErrorCode, KgcError } from '../../errors';
import { fsyncPath } from '../store/durable-files';
import { SUGGESTIONS_FILE } from './suggestions-file';
import { readIfPresent, unusableFile } from './version-file';
import type {
  StoredSuggestions,
  SuggestionColumns,
  SuggestionListInfo,
  SuggestionsHeader,
} from './suggestion-types';

/**
 * A version's suggestions across the graph, written one list at a time as they are computed and
 * read back as typed-array views (no parse of the rows). Layout, little-endian:
 *   0   "KGCSUGGS" 8 bytes, format u32 (BIN_FORMAT), 0 u32
 *   16  per list, at an offset that is a multiple of 8: probabilities f64 x count, logits
 *       f32 x count, heads u32 x count, tails u32 x count (20 bytes a row), zeros to a multiple
 *       of 8
 *   ... the index: JSON of the header and the lists ({relation, direction, typed, offset, count})
 *   end the index's byte length u32, 0 u32, "KGCSUGGS"
 */
export const SUGGESTIONS_BIN = 'suggestions.bin';
const BIN_FORMAT = 1;
const MAGIC = 'KGCSUGGS';
const HEADER_BYTES = 16;
const TRAILER_BYTES = 16;
const ROW_BYTES = 20;

interface IndexEntry extends SuggestionListInfo {
  offset: number;
  count: number;
}

function writeFailed(dir: string, error: unknown): KgcError {
  return new KgcError(
    ErrorCode.EXPORT_WRITE_FAILED,
    `Could not write ${SUGGESTIONS_BIN} in ${dir}: ${(error as Error).message}`,
    { cause: error },
  );
}

/** Temporary files of writers that were killed (their process is gone): never to be finished. */
function removeKilledWriters(dir: string): void {
  const prefix = `${SUGGESTIONS_BIN}.tmp-`;
  for (const name of fs.readdirSync(dir)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN;
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid)) {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

/**
 * Streams one version's suggestions to a temporary file; `finish` makes it the version's file
 * (fsync, rename, fsync of the directory), `abort` leaves the earlier file as it was. Only the
 * list being written is in memory.
 */
export class SuggestionsWriter {
  private readonly tmp: string;
  private fd: number | undefined;
  private at = HEADER_BYTES;
  private readonly index: IndexEntry[] = [];
  private written = 0;

  constructor(private readonly dir: string) {
    this.tmp = path.join(dir, `${SUGGESTIONS_BIN}.tmp-${process.pid}`);
    removeKilledWriters(dir);
    try {
      this.fd = fs.openSync(this.tmp, 'w');
      const header = Buffer.alloc(HEADER_BYTES);
      header.write(MAGIC, 0, 'latin1');
      header.writeUInt32LE(BIN_FORMAT, 8);
      fs.writeSync(this.fd, header);
    } catch (error) {
      this.abort();
      throw writeFailed(dir, error);
    }
  }

  /** Appends one list (columns of equal length, most probable first). */
  add(info: SuggestionListInfo, columns: SuggestionColumns): void {
    const count = columns.heads.length;
    const { relation, direction, typed } = info;
    this.index.push({ relation, direction, typed, offset: this.at, count });
    this.write([columns.probabilities, columns.logits, columns.heads, columns.tails]);
    const pad = (8 - ((count * ROW_BYTES) % 8)) % 8;
    if (pad > 0) this.write([new Uint8Array(pad)]);
    this.written += count;
  }

  /** Rows added so far. */
  get rows(): number {
    return this.written;
  }

  /** Writes the index and puts the file in place of the version's earlier suggestions. */
  finish(header: SuggestionsHeader): string {
    const target = path.join(this.dir, SUGGESTIONS_BIN);
    const index = Buffer.from(JSON.stringify({ ...header, lists: this.index }), 'utf8');
    const trailer = Buffer.alloc(TRAILER_BYTES);
    trailer.writeUInt32LE(index.length, 0);
    trailer.write(MAGIC, 8, 'latin1');
    this.write([index, trailer]);
    try {
      fs.fsyncSync(this.fd as number);
      fs.closeSync(this.fd as number);
      this.fd = undefined;
      fs.renameSync(this.tmp, target);
      // An older version's JSON would otherwise be read after a downgrade; this file replaces it.
      fs.rmSync(path.join(this.dir, SUGGESTIONS_FILE), { force: true });
      fsyncPath(this.dir);
    } catch (error) {
      this.abort();
      throw writeFailed(this.dir, error);
    }
    return target;
  }

  /** Removes the temporary file; the version's earlier suggestions stay. */
  abort(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    fs.rmSync(this.tmp, { force: true });
  }

  private write(views: NodeJS.ArrayBufferView[]): void {
    try {
      for (const view of views) {
        const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        for (let done = 0; done < bytes.length;)
          done += fs.writeSync(this.fd as number, bytes, done, bytes.length - done);
        this.at += bytes.length;
      }
    } catch (error) {
      this.abort();
      throw writeFailed(this.dir, error);
    }
  }
}

function parseIndex(
  text: string,
  end: number,
): (SuggestionsHeader & { lists: IndexEntry[] }) | string {
  let value: SuggestionsHeader & { lists: IndexEntry[] };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return 'its index is not JSON';
  }
  const int = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (
    typeof value?.version !== 'string' ||
    typeof value.createdAt !== 'string' ||
    !int(value.perRelation) ||
    !int(value.entities) ||
    !Array.isArray(value.lists)
  )
    return 'its index lacks the version, createdAt, perRelation, entities or lists';
  for (const l of value.lists) {
    if (typeof l?.relation !== 'string' || (l.direction !== 'tail' && l.direction !== 'head'))
      return 'a list lacks its relation or direction';
    if (!int(l.offset) || !int(l.count) || l.offset % 8 !== 0 || l.offset < HEADER_BYTES)
      return `the list of ${l.relation} has a bad offset or count`;
    if (l.offset + l.count * ROW_BYTES > end) return `the list of ${l.relation} is truncated`;
  }
  return value;
}

/**
 * The version's suggestions.bin, or undefined when it has none. The rows are views of the file
 * read once (no parse: loading does not hold the event loop); a list's ids and numbers are
 * checked when it is first read.
 */
export function readSuggestionsBin(dir: string): StoredSuggestions | undefined {
  const read = readIfPresent(dir, SUGGESTIONS_BIN);
  if (!read) return undefined;
  const bad = (why: string) => unusableFile(dir, SUGGESTIONS_BIN, why);
  const size = read.length;
  if (
    size < HEADER_BYTES + TRAILER_BYTES ||
    read.toString('latin1', 0, 8) !== MAGIC ||
    read.toString('latin1', size - 8, size) !== MAGIC
  )
    throw bad('not a kgc suggestions file, or truncated');
  const format = read.readUInt32LE(8);
  if (format !== BIN_FORMAT) throw bad(`format ${format}, not ${BIN_FORMAT}`);
  const indexBytes = read.readUInt32LE(size - TRAILER_BYTES);
  const end = size - TRAILER_BYTES - indexBytes;
  if (end < HEADER_BYTES) throw bad('its index is truncated');
  const index = parseIndex(read.toString('utf8', end, size - TRAILER_BYTES), end);
  if (typeof index === 'string') throw bad(index);
  // Views need offsets aligned to 8 in their buffer: a pooled Buffer is copied.
  const bytes: Uint8Array = read.byteOffset % 8 === 0 ? read : new Uint8Array(read);
  const checked = new Set<number>();
  const { lists, ...header } = index;
  return {
    ...header,
    lists: lists.map(({ relation, direction, typed, count }) => ({
      relation,
      direction,
      typed: typed === true,
      count,
    })),
    columns: (i) => {
      const list = lists[i];
      if (!list) throw new RangeError(`no list ${i}`);
      const { offset: at, count: n } = list;
      const base = bytes.byteOffset + at;
      const columns: SuggestionColumns = {
        probabilities: new Float64Array(bytes.buffer, base, n),
        logits: new Float32Array(bytes.buffer, base + 8 * n, n),
        heads: new Uint32Array(bytes.buffer, base + 12 * n, n),
        tails: new Uint32Array(bytes.buffer, base + 16 * n, n),
      };
      if (!checked.has(i)) {
        for (let j = 0; j < n; j++) {
          const p = columns.probabilities[j] as number;
          if (
            (columns.heads[j] as number) >= header.entities ||
            (columns.tails[j] as number) >= header.entities ||
            !(p >= 0 && p <= 1) ||
            !Number.isFinite(columns.logits[j])
          )
            throw bad(`row ${j} of ${list.relation} (${list.direction}) is out of range`);
        }
        checked.add(i);
      }
      return columns;
    },
  };
}
