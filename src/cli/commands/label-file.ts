import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { LabelsParser } from '../../ingest/parsers/labels-parser';

/**
 * A label file (`id<TAB>Label[;Label…]`, as `kgc ingest --labels` reads) as a map, for
 * commands that work on files rather than the graph. A bad line fails with its number.
 */
export function readLabelFile(file: string): Map<string, string[]> {
  const parser = new LabelsParser();
  const labels = new Map<string, string[]>();
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((raw, i) => {
    const parsed = parser.parse(raw.replace(/\r$/, ''));
    if (parsed.kind === 'invalid') {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${path.basename(file)}:${i + 1}: ${parsed.reason}. Fix the label file.`,
      );
    }
    if (parsed.kind === 'labels') {
      const known = labels.get(parsed.entity) ?? [];
      labels.set(parsed.entity, [...new Set([...known, ...parsed.labels])]);
    }
  });
  return labels;
}
