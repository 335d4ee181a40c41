import { gapEncode, type StructureSettings, type TypedRange, type TypesFile } from './types-file';

/**
 * The structural rule's default: a role set joins a relation's range when Jaccard(set, range's
 * own set) >= 0.2. Chosen by `bench/trust/types.ts --select` (validation MRR of typed ranking,
 * an answer outside the range counted as a miss): best mean over Nations, UMLS and Kinship
 * (bench/trust/README.md); narrower rules cut true answers there. Rerun it on the larger graphs
 * before changing this.
 */
export const DEFAULT_STRUCTURE: StructureSettings = { measure: 'jaccard', threshold: 0.2 };

/** Past this many role sets the pairwise overlap table (roles² counters) is not built. */
const MAX_ROLES_FOR_OVERLAP = 4096;

export interface TypesInput {
  entityCount: number;
  relations: string[];
  /** The observed edges, as entity and relation indices. */
  heads: ArrayLike<number>;
  relationIds: ArrayLike<number>;
  tails: ArrayLike<number>;
  /** Label names and, per entity index, the indices of its labels (absent: none). */
  labels?: { names: string[]; of: (readonly number[] | undefined)[] };
  structure?: StructureSettings;
}

/**
 * Each relation's range (tails) and domain (heads). Pure: the same edges and labels give the
 * same file. Where the relation's observed ends carry labels, the range is those labels; the
 * structural rule covers unlabelled candidates and unlabelled graphs (types-file.ts).
 */
export function learnTypes(input: TypesInput): TypesFile {
  const structure = input.structure ?? DEFAULT_STRUCTURE;
  const roleCount = 2 * input.relations.length;
  const roles = roleSets(input, roleCount);
  const related = relatedRoles(roles, input.entityCount, structure);
  const labels = input.labels;
  const ranges: TypedRange[] = roles.map((members, role) => ({
    roles: related?.[role] ?? [role],
    labels: labels ? labelsOf(members, labels.of) : [],
  }));
  const labelMembers: number[][] = (labels?.names ?? []).map(() => []);
  labels?.of.forEach((ofEntity, entity) => {
    for (const label of ofEntity ?? []) labelMembers[label]?.push(entity);
  });
  return {
    format: 1,
    entities: input.entityCount,
    relations: input.relations,
    structure,
    roles: roles.map((members) => gapEncode(members)),
    labels: labels?.names ?? [],
    labelMembers: labelMembers.map((members) => gapEncode(members)),
    ranges,
  };
}

/** Sorted distinct entities per role: `2r` the tails of relation r, `2r + 1` its heads. */
function roleSets(input: TypesInput, roleCount: number): Int32Array[] {
  const seen: Set<number>[] = Array.from({ length: roleCount }, () => new Set<number>());
  for (let i = 0; i < input.heads.length; i++) {
    const r = input.relationIds[i] as number;
    seen[2 * r]?.add(input.tails[i] as number);
    seen[2 * r + 1]?.add(input.heads[i] as number);
  }
  return seen.map((set) => Int32Array.from(set).sort());
}

/**
 * For each role, the roles whose sets overlap its own by the measure (itself always). Counts
 * every pair's intersection from each entity's role list: the cost is the sum over entities of
 * (roles it plays)², far below pairwise set intersections.
 */
function relatedRoles(
  roles: Int32Array[],
  entityCount: number,
  structure: StructureSettings,
): number[][] | undefined {
  const n = roles.length;
  if (n === 0 || n > MAX_ROLES_FOR_OVERLAP) return undefined;
  const playedBy: number[][] = Array.from({ length: entityCount }, () => []);
  roles.forEach((members, role) => members.forEach((e) => playedBy[e]?.push(role)));
  const shared = new Int32Array(n * n);
  for (const played of playedBy) {
    for (const a of played) for (const b of played) (shared[a * n + b] as number) += 1;
  }
  return roles.map((own, a) => {
    const out = [a];
    if (own.length === 0) return out;
    for (let b = 0; b < n; b++) {
      if (b === a) continue;
      const other = roles[b] as Int32Array;
      const common = shared[a * n + b] as number;
      if (common === 0) continue;
      const score =
        structure.measure === 'jaccard'
          ? common / (own.length + other.length - common)
          : common / other.length;
      if (score >= structure.threshold) out.push(b);
    }
    return out;
  });
}

/** The labels carried by any of `members`, sorted. */
function labelsOf(members: Int32Array, of: (readonly number[] | undefined)[]): number[] {
  const found = new Set<number>();
  for (const e of members) for (const label of of[e] ?? []) found.add(label);
  return [...found].sort((a, b) => a - b);
}
