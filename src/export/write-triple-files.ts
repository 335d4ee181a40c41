import fs from 'node:fs';
import path from 'node:path';
import type { DenseGraph } from './dense-graph';

/**
 * Writes triples as `head<TAB>relation<TAB>tail` lines (the ingest TSV format, so an export can
 * be re-ingested), in blocks to keep write calls few. Ids never hold tabs or line breaks:
 * ingest validation rejects them.
 */
export async function writeTripleFile(
  file: string,
  graph: DenseGraph,
  indexes?: Int32Array,
): Promise<number> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const stream = fs.createWriteStream(file, { encoding: 'utf8' });
  const count = indexes ? indexes.length : graph.heads.length;
  const done = new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
  });
  let block: string[] = [];
  for (let k = 0; k < count; k++) {
    const i = indexes ? (indexes[k] as number) : k;
    block.push(
      `${graph.entities[graph.heads[i] as number]}\t${graph.relationNames[graph.relations[i] as number]}\t${graph.entities[graph.tails[i] as number]}\n`,
    );
    if (block.length === 10_000) {
      if (!stream.write(block.join('')))
        await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
      block = [];
    }
  }
  stream.end(block.join(''));
  await done;
  return count;
}
