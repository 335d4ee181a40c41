import fs from 'node:fs';
import path from 'node:path';

/**
 * Flushes one file or directory to the disk. A directory is flushed for its entries (the names
 * it holds), which is what makes a rename or a removal inside it survive a power loss.
 */
export function fsyncPath(target: string): void {
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flushes every file under `dir`, each subdirectory, then `dir` itself (children first). */
export function fsyncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(child);
    else if (entry.isFile()) fsyncPath(child);
  }
  fsyncPath(dir);
}

/**
 * Renames `from` to `to` so that a crash at any moment leaves one of the two, whole: the source
 * tree is on disk before the rename, and the parent's new entry after it.
 */
export function durableRename(from: string, to: string): void {
  fsyncTree(from);
  fs.renameSync(from, to);
  fsyncPath(path.dirname(to));
}
