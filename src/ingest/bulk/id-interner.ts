/** Maps per interner: V8 caps one Map at 2^24 entries, far below the graphs bulk loads aim at. */
const SHARDS = 16;

/**
 * Dense integer ids for strings (entity ids, relation names), in order of first sight: 0, 1, 2…
 * The strings are held once, in sharded Maps.
 */
export class IdInterner {
  private readonly shards: Map<string, number>[] = Array.from({ length: SHARDS }, () => new Map());
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The id of `value`, given a new one on first sight. */
  intern(value: string): number {
    const shard = this.shards[shardOf(value)] as Map<string, number>;
    const known = shard.get(value);
    if (known !== undefined) return known;
    const id = this.count;
    shard.set(value, id);
    this.count += 1;
    return id;
  }

  /** Every `(value, id)`, shard by shard (not in id order). */
  *entries(): IterableIterator<[string, number]> {
    for (const shard of this.shards) yield* shard.entries();
  }
}

/** A cheap hash of the last few characters (ids tend to differ at the end) and the length. */
function shardOf(value: string): number {
  let h = value.length;
  for (let i = Math.max(0, value.length - 6); i < value.length; i++) {
    h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  }
  return (h ^ (h >>> 16)) & (SHARDS - 1);
}
