import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { isRecord, readModelJson } from '../store/model-json';

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

/** A types file is at most this big (a million entities' roles fit in a few hundred MB). */
const MAX_TYPES_BYTES = 1024 * 2 ** 20;

/** The version's types, or undefined when it has none (older versions, files-path models). */
export function readTypesFile(dir: string): TypesFile | undefined {
  const file = path.join(dir, TYPES_FILE);
  if (!fs.existsSync(file)) return undefined;
  const invalid = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `${file} is unusable: ${why}; delete it to serve the version untyped.`,
    );
  const types = readModelJson(file, MAX_TYPES_BYTES, invalid);
  const problem = typesProblem(types);
  if (problem) throw invalid(problem);
  return types as TypesFile;
}

const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

/** Gap-encoded entity sets whose entities all lie in 0..entities-1. */
function entitySetsProblem(sets: unknown, entities: number, what: string): string | null {
  if (!Array.isArray(sets)) return `${what} is not a list`;
  for (const [i, gaps] of sets.entries()) {
    if (!Array.isArray(gaps)) return `${what}[${i}] is not a list`;
    let value = 0;
    for (const gap of gaps) {
      value += gap as number;
      if (!isCount(gap) || value >= entities) {
        return `${what}[${i}] holds an entity outside the version's ${entities}`;
      }
    }
  }
  return null;
}

function typesProblem(types: unknown): string | null {
  if (!isRecord(types) || types.format !== 1) {
    return `not a types file this kgc reads (format ${String(isRecord(types) ? types.format : undefined)})`;
  }
  const { entities, relations, labels, ranges } = types;
  if (!isCount(entities)) return 'its entity count is not a count';
  if (!Array.isArray(relations) || !relations.every((r) => typeof r === 'string')) {
    return 'its relations are not a list of names';
  }
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string')) {
    return 'its labels are not a list of names';
  }
  if (!Array.isArray(ranges) || ranges.length !== 2 * relations.length) {
    return 'it does not have a range and a domain for each relation';
  }
  const roleCount = 2 * relations.length;
  const badRange = ranges.findIndex(
    (range) =>
      !isRecord(range) ||
      !Array.isArray(range.roles) ||
      !Array.isArray(range.labels) ||
      !range.roles.every((role) => isCount(role) && role < roleCount) ||
      !range.labels.every((label) => isCount(label) && label < labels.length),
  );
  if (badRange >= 0) return `range ${badRange} names roles or labels it does not have`;
  if (Array.isArray(types.roles) && types.roles.length !== roleCount) {
    return 'it does not have the tails and heads of each relation';
  }
  if (Array.isArray(types.labelMembers) && types.labelMembers.length !== labels.length) {
    return 'it does not have the members of each label';
  }
  return (
    entitySetsProblem(types.roles, entities, 'roles') ??
    entitySetsProblem(types.labelMembers, entities, 'labelMembers')
  );
}
