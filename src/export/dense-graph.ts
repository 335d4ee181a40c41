import { EventLoopTurns } from '../event-loop-turns';
import { streamEdgesByNode, type Database, type EdgeFilter } from '../graph';
import { NodeVocabulary } from './node-vocabulary';
import { Vocabulary } from './vocabulary';

/**
 * A graph as dense integer ids. `entities[i]` / `relations[j]` name id i / j; both vocabularies
 * are sorted (JS string order), so the same graph always gives the same ids. Triple k is
 * (heads[k], relations[k], tails[k]); triples are sorted by (head, relation, tail) and distinct.
 */
export interface DenseGraph {
  entities: string[];
  relationNames: string[];
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

/** Growable Int32Array: the triple count is unknown while streaming. */
class IntColumn {
  data = new Int32Array(1 << 16);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

/** Heads between two `onEdges` reports: a report per record would cost more than it tells. */
const REPORT_EVERY_HEADS = 1000;

/**
 * Streams the graph's edges out of Neo4j into a DenseGraph; `onEdges` gets the count so far.
 * Entities and relations travel as numbers (streamEdgesByNode): decoding and looking up a
 * string per edge was the client's cost that bounded the export of large graphs.
 */
export async function exportDenseGraph(
  db: Database,
  filter: EdgeFilter = {},
  onEdges?: (edges: number) => void,
): Promise<DenseGraph> {
  const entityVocab = new NodeVocabulary();
  const relationVocab = new Vocabulary();
  let typeNames: readonly string[] = [];
  let typeCount = 1;
  // Relation type index -> provisional relation id + 1 (0: not yet seen).
  let typeIds = new Int32Array(0);
  const h = new IntColumn();
  const r = new IntColumn();
  const t = new IntColumn();
  let heads = 0;
  await streamEdgesByNode(db, filter, {
    onRelationTypes(types) {
      typeNames = types;
      typeCount = Math.max(types.length, 1);
      typeIds = new Int32Array(typeCount);
    },
    onHead(node, head, out) {
      if (onEdges && ++heads % REPORT_EVERY_HEADS === 0) onEdges(h.length);
      const hid = entityVocab.name(node, head);
      for (let i = 0; i < out.length; i++) {
        const packed = out[i];
        // Exact: node ids stay below 2^35 and type counts below 2^16.
        if (packed === null || packed === undefined) continue;
        const type = packed % typeCount;
        let rid = (typeIds[type] as number) - 1;
        if (rid < 0) {
          rid = relationVocab.idOf(typeNames[type] as string);
          typeIds[type] = rid + 1;
        }
        h.push(hid);
        r.push(rid);
        t.push(entityVocab.indexOf((packed - type) / typeCount));
      }
    },
    unnamedNodes: () => entityVocab.unnamedNodes(),
    onNames(nodes, ids) {
      for (let i = 0; i < nodes.length; i++) entityVocab.name(nodes[i] as number, ids[i] as string);
    },
  });
  onEdges?.(h.length);
  const turns = new EventLoopTurns();
  // Seconds each on tens of millions of edges: a turn of the event loop between them lets
  // timers (a training job's lease renewal) run. The longest stretch left is one sort.
  await turns.turn();
  const entities = entityVocab.sorted();
  await turns.turn();
  const relations = relationVocab.sorted();
  const columns = dropUnnamed(
    remapColumn(h, entities.remap),
    remapColumn(r, relations.remap),
    remapColumn(t, entities.remap),
  );
  await turns.turn();
  return canonical(entities.names, relations.names, columns.h, columns.r, columns.t);
}

/** Drops triples whose head or tail was deleted while the export read (remapped to -1). */
function dropUnnamed(h: Int32Array, r: Int32Array, t: Int32Array): Columns {
  let kept = 0;
  for (let i = 0; i < h.length; i++) {
    if ((h[i] as number) < 0 || (t[i] as number) < 0) continue;
    h[kept] = h[i] as number;
    r[kept] = r[i] as number;
    t[kept] = t[i] as number;
    kept += 1;
  }
  if (kept === h.length) return { h, r, t };
  return { h: h.slice(0, kept), r: r.slice(0, kept), t: t.slice(0, kept) };
}

function remapColumn(column: IntColumn, remap: Int32Array): Int32Array {
  const out = new Int32Array(column.length);
  for (let i = 0; i < column.length; i++) out[i] = remap[column.data[i] as number] as number;
  return out;
}

/**
 * Sorts triples by (head, relation, tail) and drops repeats (two edges of one type between the
 * same nodes, which Cypher allows and ingest never creates): the export depends only on the set
 * of edges, not on the order Neo4j returned them in.
 */
export function canonical(
  entities: string[],
  relationNames: string[],
  heads: Int32Array,
  relations: Int32Array,
  tails: Int32Array,
): DenseGraph {
  const e = Math.max(entities.length, 1);
  const r = Math.max(relationNames.length, 1);
  // (h, r, t) packed into one exact double when it fits in 53 bits (FB15k-237: 36): a native
  // numeric sort of one Float64Array instead of a comparator call per comparison (measured
  // several times faster). Larger graphs take the comparator path.
  const packed = e * e * r <= Number.MAX_SAFE_INTEGER;
  const sorted = packed
    ? sortPacked(heads, relations, tails, e, r)
    : sortByComparator(heads, relations, tails);
  return { entities, relationNames, heads: sorted.h, relations: sorted.r, tails: sorted.t };
}

interface Columns {
  h: Int32Array;
  r: Int32Array;
  t: Int32Array;
}

function sortPacked(
  heads: Int32Array,
  relations: Int32Array,
  tails: Int32Array,
  e: number,
  r: number,
): Columns {
  const keys = new Float64Array(heads.length);
  for (let i = 0; i < keys.length; i++) {
    keys[i] = ((heads[i] as number) * r + (relations[i] as number)) * e + (tails[i] as number);
  }
  keys.sort();
  const out = {
    h: new Int32Array(keys.length),
    r: new Int32Array(keys.length),
    t: new Int32Array(keys.length),
  };
  let n = 0;
  let previous = -1;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as number;
    if (key === previous) continue;
    previous = key;
    const t = key % e;
    const hr = (key - t) / e;
    const rr = hr % r;
    out.h[n] = (hr - rr) / r;
    out.r[n] = rr;
    out.t[n] = t;
    n += 1;
  }
  return { h: out.h.slice(0, n), r: out.r.slice(0, n), t: out.t.slice(0, n) };
}

function sortByComparator(heads: Int32Array, relations: Int32Array, tails: Int32Array): Columns {
  const order = new Int32Array(heads.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort(
    (a, b) =>
      (heads[a] as number) - (heads[b] as number) ||
      (relations[a] as number) - (relations[b] as number) ||
      (tails[a] as number) - (tails[b] as number),
  );
  const out = {
    h: new Int32Array(order.length),
    r: new Int32Array(order.length),
    t: new Int32Array(order.length),
  };
  let n = 0;
  for (const i of order) {
    const hh = heads[i] as number;
    const rr = relations[i] as number;
    const tt = tails[i] as number;
    if (n > 0 && out.h[n - 1] === hh && out.r[n - 1] === rr && out.t[n - 1] === tt) continue;
    out.h[n] = hh;
    out.r[n] = rr;
    out.t[n] = tt;
    n += 1;
  }
  return { h: out.h.slice(0, n), r: out.r.slice(0, n), t: out.t.slice(0, n) };
}
