import type { Direction } from '../../direction';
import type { FoldedTypeFacts } from '../fold-in/fold-in-edges';
import { gapDecode, type TypesFile } from './types-file';

interface RangeIndex {
  /** 1 where the entity is in the range. */
  inRange: Uint8Array;
  /** The entities outside it, ascending: the exclusion list handed to the engine. */
  outOfRange: Uint32Array;
}

/**
 * A version's domains and ranges as serving asks for them. Each (relation, direction)'s index
 * is built on its first query and kept: one N-byte mask plus the out-of-range list, so memory
 * grows with the relations actually asked about, never with all of them up front.
 *
 * With folded entities (`withFolded`), the version's own indexes are read from the types it
 * grew from and only the folded entities are judged: a fold-in batch costs its own entities,
 * not another pass over the version's (a million at scale).
 */
export class ServingTypes {
  private readonly built = new Map<number, RangeIndex>();
  /** The version's own entities' types (undefined: this is it). */
  private readonly trained: TrainedTypes;

  /**
   * `folded`: entities appended after the version's (fold-in, ids n..), typed by the roles
   * their edges give them and by their labels, as the version's own entities are.
   */
  constructor(
    types: TypesFile | ServingTypes,
    private readonly folded: readonly FoldedTypeFacts[] = [],
  ) {
    this.trained = types instanceof ServingTypes ? types.trained : new TrainedTypes(types);
  }

  /** The same types with `folded` entities appended (a new object: served models are immutable). */
  withFolded(folded: readonly FoldedTypeFacts[]): ServingTypes {
    return new ServingTypes(this, folded);
  }

  get entityCount(): number {
    return this.trained.types.entities + this.folded.length;
  }

  /** The entities outside the relation's range (tail) or domain (head). */
  outOfRange(relation: number, direction: Direction): Uint32Array {
    return this.index(relation, direction).outOfRange;
  }

  isConsistent(relation: number, direction: Direction, entity: number): boolean {
    return this.index(relation, direction).inRange[entity] === 1;
  }

  private index(relation: number, direction: Direction): RangeIndex {
    const key = 2 * relation + (direction === 'head' ? 1 : 0);
    if (this.folded.length === 0) return this.trained.index(key);
    let index = this.built.get(key);
    if (!index) {
      index = this.withFoldedVerdicts(key, this.trained.index(key));
      this.built.set(key, index);
    }
    return index;
  }

  /** The version's index for `key` extended by the folded entities' verdicts. */
  private withFoldedVerdicts(key: number, own: RangeIndex): RangeIndex {
    const n = this.trained.types.entities;
    const inRange = new Uint8Array(n + this.folded.length);
    inRange.set(own.inRange);
    const outside: number[] = [];
    this.folded.forEach((facts, i) => {
      if (this.trained.judges(key, facts)) inRange[n + i] = 1;
      else outside.push(n + i);
    });
    const outOfRange = new Uint32Array(own.outOfRange.length + outside.length);
    outOfRange.set(own.outOfRange);
    outOfRange.set(outside, own.outOfRange.length);
    return { inRange, outOfRange };
  }
}

/** The version's own entities' types, decoded once and shared by every fold-in after it. */
class TrainedTypes {
  private readonly roles: Int32Array[];
  /** Per entity, its label ids (undefined: unlabelled). */
  private readonly labelsOf: (number[] | undefined)[];
  private readonly labelIds: Map<string, number>;
  private readonly built = new Map<number, RangeIndex>();

  constructor(readonly types: TypesFile) {
    this.roles = types.roles.map(gapDecode);
    this.labelsOf = new Array<number[] | undefined>(types.entities);
    types.labelMembers.forEach((gaps, label) => {
      for (const e of gapDecode(gaps)) (this.labelsOf[e] ??= []).push(label);
    });
    this.labelIds = new Map(types.labels.map((name, i) => [name, i]));
  }

  index(key: number): RangeIndex {
    let index = this.built.get(key);
    if (!index) {
      index = this.build(key);
      this.built.set(key, index);
    }
    return index;
  }

  /**
   * Whether an entity with these facts is in range `key`: by its labels when it has one the
   * version knows (and the range has labels), else by the roles its edges give it.
   */
  judges(key: number, facts: FoldedTypeFacts): boolean {
    const range = this.types.ranges[key];
    if (!range) return true;
    const labels = facts.labels.flatMap((name) => this.labelIds.get(name) ?? []);
    if (range.labels.length > 0 && labels.length > 0) {
      return labels.some((l) => range.labels.includes(l));
    }
    return facts.roles.some((role) => range.roles.includes(role));
  }

  private build(key: number): RangeIndex {
    const n = this.types.entities;
    const range = this.types.ranges[key];
    const inRange = new Uint8Array(n);
    if (!range) {
      // A relation the types do not know (never: types and model share the vocabulary).
      inRange.fill(1);
      return { inRange, outOfRange: new Uint32Array(0) };
    }
    for (const role of range.roles) for (const e of this.roles[role] ?? []) inRange[e] = 1;
    if (range.labels.length > 0) {
      const wanted = new Set(range.labels);
      for (let e = 0; e < n; e++) {
        const labels = this.labelsOf[e];
        // Labelled entities are judged by their labels alone; unlabelled ones keep the
        // structural verdict set above.
        if (labels) inRange[e] = labels.some((l) => wanted.has(l)) ? 1 : 0;
      }
    }
    let outside = 0;
    for (let e = 0; e < n; e++) outside += 1 - (inRange[e] as number);
    const outOfRange = new Uint32Array(outside);
    for (let e = 0, j = 0; e < n; e++) if (inRange[e] === 0) outOfRange[j++] = e;
    return { inRange, outOfRange };
  }
}

/** A flat candidate mask for the engine's typed evaluation: bit set = candidate allowed. */
export function candidateMask(types: ServingTypes, relationCount: number): Uint32Array {
  const n = types.entityCount;
  const words = Math.ceil(n / 32);
  const mask = new Uint32Array(2 * relationCount * words);
  for (let r = 0; r < relationCount; r++) {
    (['tail', 'head'] as const).forEach((direction, d) => {
      const base = (2 * r + d) * words;
      for (let e = 0; e < n; e++) {
        if (types.isConsistent(r, direction, e))
          mask[base + (e >>> 5)] = (mask[base + (e >>> 5)] as number) | (1 << (e & 31));
      }
    });
  }
  return mask;
}
