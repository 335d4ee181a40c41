import { ErrorCode, KgcError } from '../errors';
import type { Direction } from '../direction';

/** Where a review page ended, in the stored list of one version's suggestions. */
export interface ReviewCursor {
  version: string;
  /** The suggestions file's createdAt: a later `kgc suggest` makes older cursors stale. */
  createdAt: string;
  relation: string;
  direction: Direction;
  /** Index in the stored list just after the page's last item. */
  next: number;
}

/** Opaque to clients: base64url of the JSON array. */
export function encodeReviewCursor(c: ReviewCursor): string {
  return Buffer.from(
    JSON.stringify(['review', c.version, c.createdAt, c.relation, c.direction, c.next]),
  ).toString('base64url');
}

function parse(cursor: string): ReviewCursor | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 6 &&
      v[0] === 'review' &&
      typeof v[1] === 'string' &&
      typeof v[2] === 'string' &&
      typeof v[3] === 'string' &&
      (v[4] === 'tail' || v[4] === 'head') &&
      Number.isInteger(v[5]) &&
      (v[5] as number) >= 0
    ) {
      return {
        version: v[1],
        createdAt: v[2],
        relation: v[3],
        direction: v[4],
        next: v[5] as number,
      };
    }
  } catch {
    // not base64 JSON: not a cursor
  }
  return undefined;
}

/**
 * The cursor `after` of a queue of `expected`'s suggestions: BAD_USER_INPUT when it is not a
 * review cursor or belongs to another relation or direction, STALE_CURSOR when it belongs to
 * other suggestions (another version, or suggestions recomputed since).
 */
export function readReviewCursor(after: string, expected: Omit<ReviewCursor, 'next'>): number {
  const c = parse(after);
  if (!c) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      "Argument after is not a review queue cursor: pass a page's endCursor.",
    );
  }
  if (c.relation !== expected.relation || c.direction !== expected.direction) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Argument after is a cursor of relation "${c.relation}" (${c.direction}), not of this queue: pass this queue's endCursor.`,
    );
  }
  if (c.version !== expected.version || c.createdAt !== expected.createdAt) {
    throw new KgcError(
      ErrorCode.STALE_CURSOR,
      `Argument after is a cursor of other suggestions (model version ${c.version}); the queue now serves ${expected.version}'s: start again without after.`,
    );
  }
  return c.next;
}
