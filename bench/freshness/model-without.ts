/**
 * A trained model less the inductive split's held-out entities: the floor experiment of issue 57.
 *
 *   npx tsx bench/freshness/model-without.ts --data <datasets> --dataset FB15k-237 \
 *     --model <full retrain> --out <dir> [--seed 1] [--share 0.1]
 *
 * Writes a copy of `--model` (a full retrain: trained on train + every ingested edge) whose
 * entity table lacks the held-out entities of `inductiveSplit(dataset, seed)`. Passed to
 * fold-in.ts as `--model`, with the same full retrain as `--full-model`, the fold-in refits
 * the held-out rows inside the very model that learned them jointly: what is left of the gap
 * to the full retrain is the fold-in's own (its objective and optimiser), and the rest of the
 * usual gap comes from a reduced model that never saw the new entities' edges.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { datasetDir, takeDataOption } from '../datasets';
import { option } from '../quality/cli-option';
import { inductiveSplit } from './inductive-split';

interface TensorEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** `safetensors` bytes with the rows of `E` (`[n, d]`) not in `keep` dropped. */
function withoutRows(file: Buffer, keep: number[]): Buffer {
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    TensorEntry | Record<string, string>
  >;
  const data = file.subarray(8 + headerLength);
  const names = Object.keys(header)
    .filter((k) => k !== '__metadata__')
    .sort(
      (a, b) =>
        (header[a] as TensorEntry).data_offsets[0] - (header[b] as TensorEntry).data_offsets[0],
    );
  const parts: Buffer[] = [];
  const out: Record<string, unknown> = {};
  if (header.__metadata__) out.__metadata__ = header.__metadata__;
  let offset = 0;
  for (const name of names) {
    const entry = header[name] as TensorEntry;
    let bytes = data.subarray(entry.data_offsets[0], entry.data_offsets[1]);
    let shape = entry.shape;
    if (name === 'E') {
      if (entry.dtype !== 'F32') throw new Error(`E is ${entry.dtype}, expected F32`);
      const rowBytes = 4 * (entry.shape[1] as number);
      bytes = Buffer.concat(keep.map((i) => bytes.subarray(i * rowBytes, (i + 1) * rowBytes)));
      shape = [keep.length, entry.shape[1] as number];
    }
    out[name] = { dtype: entry.dtype, shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(out);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json, 'utf8'), ...parts]);
}

function main(): void {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const name = option(rest, 'dataset') ?? 'FB15k-237';
  const seed = Number(option(rest, 'seed') ?? 1);
  const from = option(rest, 'model');
  const to = option(rest, 'out');
  if (!from || !to) throw new Error('--model <dir> and --out <dir> are required');
  const split = inductiveSplit(datasetDir(name, data), seed, Number(option(rest, 'share') ?? 0.1));
  const heldOut = new Set(split.heldOut);
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'manifest.json'), 'utf8')) as {
    entities: string[];
    n_entities: number;
    tensors_file: string;
    tensors_bytes: number;
    tensors_sha256: string;
  };
  const keep = manifest.entities.flatMap((e, i) => (heldOut.has(e) ? [] : [i]));
  const tensors = withoutRows(fs.readFileSync(path.join(from, manifest.tensors_file)), keep);
  fs.mkdirSync(to, { recursive: true });
  fs.writeFileSync(path.join(to, manifest.tensors_file), tensors);
  const written = {
    ...manifest,
    entities: keep.map((i) => manifest.entities[i]),
    n_entities: keep.length,
    tensors_bytes: tensors.length,
    tensors_sha256: crypto.createHash('sha256').update(tensors).digest('hex'),
  };
  fs.writeFileSync(path.join(to, 'manifest.json'), JSON.stringify(written, null, 2));
  console.log(
    `${to}: ${keep.length} of ${manifest.entities.length} entities (${manifest.entities.length - keep.length} held out dropped)`,
  );
}

main();
