import { useEffect, useRef, useState } from 'preact/hooks';
import { describe } from './api';
import { ItemDetail } from './item-detail';
import { QueueRow } from './queue-row';
import {
  accept,
  Direction,
  edgeOf,
  fetchQueue,
  fetchStats,
  itemKey,
  reject,
  ReviewItem,
  ReviewStats,
  undo,
} from './queue-source';
import { useQueueKeys } from './use-queue-keys';

/** The first page is small (each item's reasons are read from the graph): quick to show. */
const FIRST_PAGE = 20;
const PAGE = 100;
/**
 * The next page is asked for once the reviewer is this close to the end of the loaded items
 * (and right after the first page): on a large graph a page of reasons takes seconds to read.
 */
const PREFETCH_WITHIN = 60;

const describeItems = (items: ReviewItem[]): string =>
  items.length === 1 ? `${items[0]?.head.id} → ${items[0]?.tail.id}` : `${items.length} edges`;

interface Decided {
  kind: 'accept' | 'reject';
  items: ReviewItem[];
  /** Where the first of them was in the list: an undo puts them back there. */
  at: number;
}

interface Props {
  apiKey: string;
  relation: string;
  canDecide: boolean;
  onDecided: () => void;
}

/** The queue of one relation: rows on the left, the current item on the right, decisions. */
export function Queue({ apiKey, relation, canDecide, onDecided }: Props) {
  const [direction, setDirection] = useState<Direction>('TAIL');
  const [items, setItems] = useState<ReviewItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [stats, setStats] = useState<ReviewStats | null>(null);
  /** Undecided items of this relation and direction (the page's own count, not reviewStats'). */
  const [pending, setPending] = useState<number | null>(null);
  const [current, setCurrent] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const [loading, setLoading] = useState(true);
  const history = useRef<Decided[]>([]);
  // Decisions and undos reach the API in the order they were made (an undo never overtakes).
  const chain = useRef<Promise<void>>(Promise.resolve());
  const serially = (call: () => Promise<void>) => (chain.current = chain.current.then(call));
  const list = useRef<HTMLOListElement>(null);
  /** Bumped by each first-page load: a page asked for before it is dropped when it arrives. */
  const generation = useRef(0);
  /** A next page is on its way (asked for once at a time). */
  const fetchingMore = useRef(false);
  /** Moves past the last loaded item (j held at the end): made when the next page arrives. */
  const pendingMoves = useRef(0);

  const load = async (after: string | null, focus?: string) => {
    if (after && fetchingMore.current) return;
    const mine = after ? generation.current : ++generation.current;
    // A first page drops whatever was on its way for the list before it.
    fetchingMore.current = after !== null;
    if (!after) pendingMoves.current = 0;
    setLoading(true);
    try {
      if (!after) {
        // The counts come on their own: the first item is drawn without waiting for them.
        fetchStats(apiKey, relation, direction).then(
          (counts) => {
            setStats(counts.stats);
            setPending(counts.pending);
          },
          (error: unknown) => setStatus({ text: describe(error), error: true }),
        );
      }
      const page = await fetchQueue(apiKey, {
        relation,
        direction,
        minProbability: null,
        first: after ? PAGE : FIRST_PAGE,
        after,
      });
      if (mine !== generation.current) return;
      setItems((old) => (after ? [...old, ...page.items] : page.items));
      setCursor(page.endCursor);
      setHasMore(page.hasMore);
      if (!after) {
        const at = focus ? page.items.findIndex((i) => itemKey(i) === focus) : -1;
        setCurrent(Math.max(at, 0));
        setSelected(new Set());
      } else if (pendingMoves.current > 0) {
        // The reviewer was at the last item: the moves land in the new page.
        const steps = Math.min(pendingMoves.current, page.items.length);
        pendingMoves.current = 0;
        setCurrent((c) => c + steps);
      }
      fetchingMore.current = false;
      setLoading(false);
      if (!after && page.hasMore) void load(page.endCursor);
    } catch (error) {
      if (mine !== generation.current) return;
      fetchingMore.current = false;
      setLoading(false);
      setStatus({ text: describe(error), error: true });
    }
  };

  useEffect(() => {
    void load(null);
  }, [relation, direction]);

  useEffect(() => {
    list.current?.children[current]?.scrollIntoView({ block: 'nearest' });
  }, [current]);

  const move = (step: number) => {
    const last = Math.max(items.length - 1, 0);
    const next = Math.min(Math.max(current + step, 0), last);
    setCurrent(next);
    if (step < 0) pendingMoves.current = 0;
    if (step > 0 && hasMore) {
      pendingMoves.current += current + step - next;
      if (next >= items.length - PREFETCH_WITHIN) void load(cursor);
    }
  };

  const targets = (): ReviewItem[] => {
    if (selected.size > 0) return items.filter((i) => selected.has(itemKey(i)));
    const item = items[current];
    return item ? [item] : [];
  };

  /** The items leave the list at once (the next one is current); the API call follows. */
  const decide = async (kind: 'accept' | 'reject', chosen: ReviewItem[], why = '') => {
    if (!canDecide || chosen.length === 0) return;
    const gone = new Set(chosen.map(itemKey));
    const at = items.findIndex((i) => gone.has(itemKey(i)));
    const rest = items.filter((i) => !gone.has(itemKey(i)));
    setItems(rest);
    setCurrent(Math.min(current, Math.max(rest.length - 1, 0)));
    setSelected(new Set());
    setRejecting(false);
    setReason('');
    const what = describeItems(chosen);
    const decision: Decided = { kind, items: chosen, at };
    history.current.push(decision);
    await serially(async () => {
      try {
        const edges = chosen.map(edgeOf);
        await (kind === 'accept' ? accept(apiKey, edges) : reject(apiKey, edges, why));
        setPending((n) => (n === null ? n : n - chosen.length));
        setStats((s) => s && { ...s, [`${kind}ed`]: s[`${kind}ed`] + chosen.length });
        setStatus({
          text: `${kind === 'accept' ? 'Accepted' : 'Rejected'} ${what}. Press u to undo.`,
          error: false,
        });
        onDecided();
      } catch (error) {
        history.current = history.current.filter((d) => d !== decision);
        setStatus({ text: `Not ${kind}ed: ${describe(error)}`, error: true });
        await load(null);
      }
    });
  };

  /** Undoes the newest decision, after the calls of those before it (serially). */
  const undoLast = async () => {
    const last = history.current.pop();
    if (!canDecide || !last) return;
    await serially(async () => {
      try {
        await undo(apiKey, last.kind, last.items.map(edgeOf));
        setStatus({ text: `Undone: ${last.kind} of ${describeItems(last.items)}.`, error: false });
        onDecided();
        // Back where they were, the first one current: undecided again, as on the server.
        setItems((now) => [...now.slice(0, last.at), ...last.items, ...now.slice(last.at)]);
        setCurrent(last.at);
        setPending((n) => (n === null ? n : n + last.items.length));
        setStats((s) => s && { ...s, [`${last.kind}ed`]: s[`${last.kind}ed`] - last.items.length });
      } catch (error) {
        setStatus({ text: `Not undone: ${describe(error)}`, error: true });
      }
    });
  };

  useQueueKeys({
    next: () => move(1),
    previous: () => move(-1),
    accept: () => void decide('accept', targets()),
    reject: () => canDecide && targets().length > 0 && setRejecting(true),
    undo: () => void undoLast(),
  });

  // Rows skip re-rendering (QueueRow), so this must not close over state: it updates from `old`.
  const toggle = (item: ReviewItem) =>
    setSelected((old) => {
      const next = new Set(old);
      const key = itemKey(item);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  const item = items[current];
  return (
    <section class="queue" aria-label="review queue">
      <div class="toolbar">
        <label>
          Direction{' '}
          <select
            value={direction}
            onChange={(e) => setDirection((e.target as HTMLSelectElement).value as Direction)}
          >
            <option value="TAIL">missing tails</option>
            <option value="HEAD">missing heads</option>
          </select>
        </label>
        {stats && (
          <span class="counts" data-testid="queue-counts">
            {pending} pending · {stats.accepted} accepted · {stats.rejected} rejected
          </span>
        )}
        {canDecide && (
          <span class="actions">
            <button onClick={() => void decide('accept', targets())} disabled={!item}>
              Accept{selected.size > 0 ? ` ${selected.size} selected` : ''} (a)
            </button>
            <button onClick={() => setRejecting(true)} disabled={!item}>
              Reject… (r)
            </button>
            <button onClick={() => void undoLast()}>Undo (u)</button>
          </span>
        )}
      </div>
      {status && (
        <p class={status.error ? 'status error' : 'status'} role="status">
          {status.text}
        </p>
      )}
      {rejecting && (
        <form
          class="reject"
          onSubmit={(e) => {
            e.preventDefault();
            void decide('reject', targets(), reason.trim());
          }}
        >
          <label>
            Why is it wrong?{' '}
            <input
              name="reason"
              autoFocus
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => e.key === 'Escape' && setRejecting(false)}
            />
          </label>
          <button type="submit">Reject</button>
          <button type="button" onClick={() => setRejecting(false)}>
            Cancel
          </button>
        </form>
      )}
      <div class="split">
        <ol class="rows" ref={list}>
          {items.map((it, index) => (
            <QueueRow
              key={itemKey(it)}
              item={it}
              index={index}
              current={index === current}
              selected={selected.has(itemKey(it))}
              canDecide={canDecide}
              onPick={setCurrent}
              onToggle={toggle}
            />
          ))}
        </ol>
        {item ? (
          <ItemDetail item={item} />
        ) : (
          <p class="muted">{loading ? 'Loading…' : 'Nothing left to review for this relation.'}</p>
        )}
      </div>
      {hasMore && (
        <button class="more" disabled={loading} onClick={() => void load(cursor)}>
          Load more
        </button>
      )}
    </section>
  );
}
