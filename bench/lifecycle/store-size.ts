import fs from 'node:fs';
import path from 'node:path';

export interface DirSize {
  bytes: number;
  files: number;
  /** The largest files, relative to the directory. */
  largest: { file: string; bytes: number }[];
}

/** Bytes on disk (apparent sizes of regular files) of a directory tree. */
export function dirSize(dir: string): DirSize {
  const all: { file: string; bytes: number }[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile())
        all.push({ file: path.relative(dir, full), bytes: fs.statSync(full).size });
    }
  };
  walk(dir);
  all.sort((a, b) => b.bytes - a.bytes);
  return {
    bytes: all.reduce((a, f) => a + f.bytes, 0),
    files: all.length,
    largest: all.slice(0, 5),
  };
}

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
