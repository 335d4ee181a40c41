import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';

/** A version's learned domains and ranges (docs/api.md, "Types"). */
export const TYPES_FILE = 'types.json';

/** How two entity sets are compared when the graph's structure stands in for labels. */
export type OverlapMeasure = 'jaccard' | 'containment';

export interface StructureSettings {
  measure: OverlapMeasure;
  /** A role set joins a range when its overlap with the relation's own set is at least this. */
  threshold: number;
}

/**
 * The range (direction `tail`) or domain (`head`) of one relation. An entity is in it when it
 * carries one of `labels` (the labels of the relation's observed tails / heads); an entity with
 * no label, or any entity where `labels` is empty, is in it when it belongs to one of `roles`
 * (role `2r` = the tails of relation r, `2r + 1` = its heads).
 */
export interface TypedRange {
  roles: number[];
  labels: number[];
}

/**
 * types.json. Entity sets are sorted entity indices (the version's vocabulary), gap-encoded:
 * each number is the difference to the previous one (the first is the index itself), which
 * keeps the file a few MB on FB15k-237.
 */
export interface TypesFile {
  format: 1;
  entities: number;
  relations: string[];
  structure: StructureSettings;
  /** `roles[2r]` the tails of relation r, `roles[2r + 1]` its heads (gap-encoded). */
  roles: number[][];
  labels: string[];
  /** `labelMembers[l]`: the entities that carry label l (gap-encoded). */
  labelMembers: number[][];
  /** `ranges[2r]` the range of relation r (tail direction), `ranges[2r + 1]` its domain. */
  ranges: TypedRange[];
}

export function gapEncode(sorted: ArrayLike<number>): number[] {
  const out = new Array<number>(sorted.length);
  let previous = 0;
  for (let i = 0; i < sorted.length; i++) {
    out[i] = (sorted[i] as number) - previous;
    previous = sorted[i] as number;
  }
  return out;
}

export function gapDecode(gaps: readonly number[]): Int32Array {
  const out = new Int32Array(gaps.length);
  let value = 0;
  for (let i = 0; i < gaps.length; i++) {
    value += gaps[i] as number;
    out[i] = value;
  }
  return out;
}

export function writeTypesFile(dir: string, types: TypesFile): void {
  fs.writeFileSync(path.join(dir, TYPES_FILE), JSON.stringify(types));
}

/** The version's types, or undefined when it has none (older versions, files-path models). */
export function readTypesFile(dir: string): TypesFile | undefined {
  const file = path.join(dir, TYPES_FILE);
  if (!fs.existsSync(file)) return undefined;
  let types: TypesFile;
  try {
    types = JSON.parse(fs.readFileSync(file, 'utf8')) as TypesFile;
  } catch (error) {
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `${file} is not valid JSON (${(error as Error).message}); delete it to serve the version untyped.`,
    );
  }
  if (
    types.format !== 1 ||
    !Array.isArray(types.roles) ||
    !Array.isArray(types.ranges) ||
    types.ranges.length !== 2 * types.relations.length
  ) {
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `${file} is not a types file this kgc reads (format ${String(types.format)}); delete it to serve the version untyped.`,
    );
  }
  return types;
}
