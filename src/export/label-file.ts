import fs from 'node:fs';
import path from 'node:path';
import { streamEntityLabels, type Database } from '../graph';

export const LABELS_FILE = 'labels.tsv';

/**
 * Writes the labels (other than Entity) of the exported entities as `id<TAB>Label[;Label…]`,
 * the format `kgc ingest --labels` and `kgc evaluate --typed --labels` read, when any of them
 * has one; returns the number of lines (0: no file). Written to a temporary name and renamed, so
 * a failed export leaves no half file.
 */
export async function writeLabelFile(
  db: Database,
  out: string,
  entities: readonly string[],
): Promise<number> {
  const exported = new Set(entities);
  const lines: string[] = [];
  await streamEntityLabels(db, (id, labels) => {
    if (!exported.has(id)) return;
    // kgc's labels hold no tab, line break or `;` (labelProblem); one set by other means might.
    const fit = labels.filter((label) => !/[\t\n\r;]/.test(label));
    if (fit.length > 0) lines.push(`${id}\t${fit.join(';')}\n`);
  });
  if (lines.length === 0) return 0;
  lines.sort();
  const temp = path.join(out, `.${LABELS_FILE}.${process.pid}.tmp`);
  await fs.promises.writeFile(temp, lines.join(''));
  await fs.promises.rename(temp, path.join(out, LABELS_FILE));
  return lines.length;
}
