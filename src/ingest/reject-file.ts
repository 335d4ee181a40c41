import fs from 'node:fs';

/**
 * Bad lines of a `--skip-invalid` run, as TSV: `line<TAB>reason<TAB>original text`. Opened on the
 * first rejection, so a clean run leaves no file behind.
 */
export class RejectFile {
  private stream: fs.WriteStream | undefined;
  count = 0;

  constructor(readonly path: string) {}

  add(lineNumber: number, reason: string, text: string | null): void {
    if (!this.stream) {
      this.stream = fs.createWriteStream(this.path, { encoding: 'utf8' });
      this.stream.write('line\treason\ttext\n');
    }
    const shown = text === null ? '' : text.replace(/[\t\r\n]/g, ' ');
    this.stream.write(`${lineNumber}\t${reason}\t${shown}\n`);
    this.count += 1;
  }

  async close(): Promise<void> {
    const stream = this.stream;
    if (!stream) return;
    await new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.end(resolve);
    });
  }
}
