import type { Direction } from '../direction';
import { ErrorCode, KgcError } from '../errors';
import { decidedEdges } from '../graph';
import type { Database } from '../graph';
import type { ServingModel, StoredSuggestion } from '../model';
import { Direction as GqlDirection } from '../schema/direction.enum';
import type { ReviewItem } from '../schema/review-item.type';
import type { ReviewPage } from '../schema/review-page.type';
import { encodeReviewCursor, readReviewCursor } from './review-cursor';

export interface ReviewQueueArgs {
  relation: string;
  direction: Direction;
  minProbability?: number | null;
  first: number;
  after?: string | null;
}

function item(
  model: ServingModel,
  relation: string,
  r: number,
  direction: Direction,
  s: StoredSuggestion,
): ReviewItem {
  const tail = direction === 'tail';
  const suggested = tail ? s.tail : s.head;
  const index = model.scorer.findEntity(suggested);
  return {
    head: { id: s.head },
    relation,
    tail: { id: s.tail },
    direction: direction === 'tail' ? GqlDirection.TAIL : GqlDirection.HEAD,
    probability: s.probability,
    logit: s.logit,
    modelVersion: model.version,
    typeConsistent:
      model.types && index !== undefined ? model.types.isConsistent(r, direction, index) : null,
    query: { entity: tail ? s.head : s.tail, relation, direction, model },
  };
}

/** How many of `items` nobody has decided (one read for all of them). */
export async function countPending(
  db: Database,
  relation: string,
  items: readonly { head: string; tail: string }[],
): Promise<number> {
  const decided = await decidedEdges(
    db,
    relation,
    items.map((s) => [s.head, s.tail] as const),
  );
  return decided.filter((d) => !d).length;
}

/**
 * Stored items one request checks against the graph at most: past them (a long run of decided
 * items) the page ends short with a cursor where the check stopped, and the next request goes on.
 */
export const MAX_REVIEW_CHECKED = 4096;

/**
 * A page of the served version's undecided suggestions, most probable first. Items are read in
 * windows from the stored list and each window is checked against the graph in one read (an
 * accepted or rejected edge is decided), until the page and one more item are found, the list
 * (cut at minProbability) ends, or MAX_REVIEW_CHECKED items were checked (then the page may be
 * short, `hasMore` is true and `endCursor` continues after the last item checked). No
 * suggestions stored: an empty page (`kgc suggest` fills it).
 */
export async function reviewPage(
  db: Database,
  model: ServingModel,
  args: ReviewQueueArgs,
): Promise<ReviewPage> {
  const { relation, direction, first } = args;
  const r = model.scorer.relation(relation);
  const list = model.suggestions?.list(relation, direction);
  const expected = {
    version: model.version,
    createdAt: list?.createdAt ?? '',
    relation,
    direction,
  };
  let next = args.after == null ? 0 : readReviewCursor(args.after, expected);
  if (!list)
    return { items: [], endCursor: null, hasMore: false, countPending: () => Promise.resolve(0) };
  const all = list.items;
  const min = args.minProbability;
  let end = all.length;
  if (min != null) {
    end = all.findIndex((s) => s.probability < min);
    if (end < 0) end = all.length;
  }
  const found: { at: number; s: StoredSuggestion }[] = [];
  const stop = Math.min(end, next + MAX_REVIEW_CHECKED);
  while (found.length <= first && next < stop) {
    const want = first + 1 - found.length;
    const window = all.slice(next, Math.min(stop, next + Math.max(2 * want, 16)));
    const decided = await decidedEdges(
      db,
      relation,
      window.map((s) => [s.head, s.tail] as const),
    );
    window.forEach((s, j) => {
      if (!decided[j] && found.length <= first) found.push({ at: next + j, s });
    });
    next += window.length;
  }
  const page = found.slice(0, first);
  const last = page[page.length - 1];
  // Stopped by the bound, not by the page or the list: the next request checks from `next`.
  const cut = found.length <= first && next < end;
  const resume = cut ? next : last ? last.at + 1 : undefined;
  return {
    items: page.map(({ s }) => item(model, relation, r, direction, s)),
    endCursor: resume === undefined ? null : encodeReviewCursor({ ...expected, next: resume }),
    hasMore: found.length > first || cut,
    countPending: () => countPending(db, relation, all),
  };
}

/** minProbability, when given, is a probability. */
export function checkMinProbability(value: number | null | undefined): void {
  if (value != null && !(value >= 0 && value <= 1)) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Argument minProbability must be from 0 to 1, got ${value}.`,
    );
  }
}
