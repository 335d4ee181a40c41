import fs from 'node:fs';

/** Bytes (in UTF-16 units, close enough) buffered before a write: few syscalls, bounded memory. */
const FLUSH_AT = 1 << 20;

/**
 * An output file written in 1 MiB blocks. `add` only buffers and says when the buffer is full;
 * the caller then awaits `flush`, so a hot loop awaits once per block, not once per line.
 */
export class BufferedFile {
  private parts: string[] = [];
  private buffered = 0;

  private constructor(
    readonly path: string,
    private readonly handle: fs.promises.FileHandle,
  ) {}

  static async create(file: string): Promise<BufferedFile> {
    return new BufferedFile(file, await fs.promises.open(file, 'w'));
  }

  /** Buffers `text`; true when the buffer is full and the caller should `flush`. */
  add(text: string): boolean {
    this.parts.push(text);
    this.buffered += text.length;
    return this.buffered >= FLUSH_AT;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const block = this.parts.join('');
    this.parts = [];
    this.buffered = 0;
    await this.handle.write(block);
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.handle.close();
    }
  }
}

/** A CSV field as neo4j-admin reads it (RFC 4180: always quoted, `"` doubled). */
export function csvField(value: string): string {
  return value.includes('"') ? `"${value.replace(/"/g, '""')}"` : `"${value}"`;
}
