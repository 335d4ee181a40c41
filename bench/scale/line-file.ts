import fs from 'node:fs';

/** Characters buffered before a write: a few syscalls per second, memory bounded. */
const FLUSH_AT = 1 << 20;

/** A text file written in 1 MiB blocks, synchronously (the generator is a synchronous loop). */
export class LineFile {
  private readonly fd: number;
  private parts: string[] = [];
  private buffered = 0;

  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'w');
  }

  add(line: string): void {
    this.parts.push(line);
    this.buffered += line.length;
    if (this.buffered >= FLUSH_AT) this.flush();
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    fs.writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.buffered = 0;
  }
}
