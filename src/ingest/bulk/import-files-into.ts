import fs from 'node:fs';
import path from 'node:path';
import {
  writeImportFiles,
  type ImportFileCounts,
  type ImportFileOptions,
  type ImportFiles,
} from './import-files';

/**
 * `kgc ingest --bulk-csv-only <dir>`: the import files in `dir`, to copy to a server kgc does
 * not manage. They are written in a temporary folder inside `dir` and moved into place only when
 * every line was good (or skipped), so a failed run leaves no partial files behind.
 */
export async function writeImportFilesInto(
  dir: string,
  options: ImportFileOptions,
): Promise<{ files: ImportFiles; counts: ImportFileCounts }> {
  fs.mkdirSync(dir, { recursive: true });
  const temp = fs.mkdtempSync(path.join(dir, '.kgc-bulk-'));
  try {
    const { files, counts } = await writeImportFiles(temp, options);
    const moved = (file: string) => {
      const target = path.join(dir, path.basename(file));
      fs.renameSync(file, target);
      return target;
    };
    return {
      files: {
        nodes: moved(files.nodes),
        relationships: moved(files.relationships),
        ...(files.properties !== undefined ? { properties: moved(files.properties) } : {}),
      },
      counts,
    };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
