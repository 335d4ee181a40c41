/** The kinds of entity a generated graph holds, in id order; `share` of all entities. */
const KINDS = [
  { kind: 'country', prefix: 'country/', labels: ['Place', 'Country'], share: 0.002 },
  { kind: 'region', prefix: 'region/', labels: ['Place', 'Region'], share: 0.02 },
  { kind: 'city', prefix: 'city/', labels: ['Place', 'City'], share: 0.078 },
  { kind: 'topic', prefix: 'topic/', labels: ['Topic'], share: 0.1 },
  { kind: 'organization', prefix: 'org/', labels: ['Organization'], share: 0.12 },
  { kind: 'product', prefix: 'product/', labels: ['Product'], share: 0.18 },
  // The rest: about half of all entities.
  { kind: 'person', prefix: 'person/', labels: ['Person'], share: 0 },
] as const;

export type EntityKind = (typeof KINDS)[number]['kind'];

/** Fewer entities would leave some kind empty. */
export const MIN_ENTITIES = 100;

/**
 * Entities 0..n-1 in one contiguous block per kind; entity `start + k` of a kind has the id
 * `<prefix><k>` (`person/42`) and the kind's labels (`Place;City`).
 */
export class EntityLayout {
  private readonly starts: number[] = [];
  private readonly counts: number[] = [];

  constructor(readonly entities: number) {
    if (!Number.isInteger(entities) || entities < MIN_ENTITIES) {
      throw new RangeError(
        `a generated graph needs at least ${MIN_ENTITIES} entities (got ${entities})`,
      );
    }
    let start = 0;
    for (const kind of KINDS) {
      const count =
        kind.share > 0 ? Math.max(1, Math.round(entities * kind.share)) : entities - start;
      this.starts.push(start);
      this.counts.push(count);
      start += count;
    }
  }

  count(kind: EntityKind): number {
    return this.counts[kindIndex(kind)] as number;
  }

  /** The entity index of the kind's `k`-th entity. */
  entity(kind: EntityKind, k: number): number {
    return (this.starts[kindIndex(kind)] as number) + k;
  }

  kindOf(entity: number): EntityKind {
    return (KINDS[this.blockOf(entity)] as (typeof KINDS)[number]).kind;
  }

  id(entity: number): string {
    const block = this.blockOf(entity);
    return `${(KINDS[block] as (typeof KINDS)[number]).prefix}${entity - (this.starts[block] as number)}`;
  }

  labels(entity: number): readonly string[] {
    return (KINDS[this.blockOf(entity)] as (typeof KINDS)[number]).labels;
  }

  private blockOf(entity: number): number {
    let block = KINDS.length - 1;
    while (block > 0 && entity < (this.starts[block] as number)) block -= 1;
    return block;
  }
}

function kindIndex(kind: EntityKind): number {
  return KINDS.findIndex((k) => k.kind === kind);
}
