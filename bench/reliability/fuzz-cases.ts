/**
 * The fuzzer's request generator: valid operations with random and hostile arguments, then
 * mutated at the text, variable and HTTP levels. Seeded: a run replays exactly.
 */

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Which generator made it, for the report. */
  kind: string;
}

export interface FuzzContext {
  entities: string[];
  relations: string[];
  adminKey: string;
  readerKey: string;
}

const u = '\\u0060';
const HOSTILE = [
  `x${u}|R]->() MATCH (e:Entity) RETURN collect(e.id) AS n //`,
  `x\\${u}|R]->() RETURN 42 AS n //`,
  'x\\U00000060|R]->() RETURN 42 AS n //',
  'x`|R]->() DETACH DELETE n //',
  `x' OR 1=1 RETURN "q" AS n //`,
  '\ud800 lone surrogate',
  '😀 \ud835\udcb3',
  '',
  ' ',
  'a'.repeat(5000),
  '\u0000\u0001\t\n',
  '$(x) {a:1} \\ */',
];

const OPERATIONS: ((c: FuzzContext, pick: Picker) => { query: string; variables: unknown })[] = [
  (c, p) => ({
    query:
      'query($e: String!, $r: String!, $k: Int!, $d: Direction!, $x: Boolean!, $m: Float) { missingLinks(entity: $e, relation: $r, k: $k, direction: $d, excludeConnected: $x, minProbability: $m) { rank logit probability modelVersion entity { id properties } } }',
    variables: {
      e: p.arg(c.entities),
      r: p.arg(c.relations),
      k: p.int(),
      d: p.of(['HEAD', 'TAIL', 'SIDEWAYS', 1]),
      x: p.of([true, false, 'yes']),
      m: p.of([null, 0.5, -1, 2, 'NaN', 1e308]),
    },
  }),
  (c, p) => ({
    query:
      'query($q: [MissingLinksInput!]!) { missingLinksBatch(queries: $q) { rank entity { id } } }',
    variables: {
      q: Array.from({ length: p.of([0, 1, 3, 64, 257]) }, () => ({
        entity: p.arg(c.entities),
        relation: p.arg(c.relations),
        k: p.int(),
      })),
    },
  }),
  (c, p) => ({
    query: 'query($id: String!) { entity(id: $id) { id properties } }',
    variables: { id: p.arg(c.entities) },
  }),
  () => ({
    query:
      '{ relations { name edgeCount inModel } model { version entityCount } health { status } }',
    variables: {},
  }),
  (_c, p) => ({
    query:
      'query($f: Int!, $a: String, $k: DecisionKind) { decisions(first: $f, after: $a, kind: $k) { items { id kind } endCursor hasMore } }',
    variables: { f: p.int(), a: p.of([null, 'x', p.hostile()]), k: p.of([null, 'ACCEPT', 'NOPE']) },
  }),
  (_c, p) => ({
    query:
      'query($f: Int!, $a: String) { trainingRuns(first: $f, after: $a) { items { id status } hasMore } }',
    variables: { f: p.int(), a: p.of([null, p.hostile()]) },
  }),
  (c, p) => ({
    query: `mutation($h: String!, $r: String!, $t: String!) { ${p.of(['acceptPrediction', 'revertAcceptedPrediction', 'undoRejection'])}(head: $h, relation: $r, tail: $t) { head } }`,
    variables: { h: p.arg(c.entities), r: p.arg(c.relations), t: p.arg(c.entities) },
  }),
  (c, p) => ({
    query:
      'mutation($h: String!, $r: String!, $t: String!, $why: String) { rejectPrediction(head: $h, relation: $r, tail: $t, reason: $why) { head reason } }',
    variables: {
      h: p.arg(c.entities),
      r: p.arg(c.relations),
      t: p.arg(c.entities),
      why: p.of([null, p.hostile()]),
    },
  }),
  (c, p) => ({
    query: 'mutation($items: [EdgeInput!]!) { acceptPredictions(items: $items) { head } }',
    variables: {
      items: Array.from({ length: p.of([0, 1, 2, 501]) }, () => ({
        head: p.arg(c.entities),
        relation: p.arg(c.relations),
        tail: p.arg(c.entities),
      })),
    },
  }),
  () => ({
    query:
      '{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }',
    variables: {},
  }),
  (_c, p) => ({
    query: `{ ${Array.from({ length: p.of([2, 40, 400]) }, (_, i) => `a${i}: health { status }`).join(' ')} }`,
    variables: {},
  }),
  (_c, p) => ({
    query: `{ ${'entity(id: "x") { id '.repeat(p.of([3, 30]))}${'}'.repeat(p.of([3, 30]))} }`,
    variables: {},
  }),
  // The surface added for trust, review and fold-in (issue 59): new entity ids fold in on a
  // missingLinks (above); these ask for edges, the review queue and its statistics.
  (c, p) => ({
    query:
      'query($edges: [EdgeInput!]!) { edgeProbabilities(edges: $edges) { head tail logit headLogit probability rank exists rejected } }',
    variables: {
      edges: Array.from({ length: p.of([0, 1, 5, 1000, 1001]) }, () => ({
        head: p.arg(c.entities),
        relation: p.arg(c.relations),
        tail: p.arg(c.entities),
      })),
    },
  }),
  (c, p) => ({
    query:
      'query($r: String!, $d: Direction!, $m: Float, $f: Int!, $a: String) { reviewQueue(relation: $r, direction: $d, minProbability: $m, first: $f, after: $a) { items { head { id } tail { id } probability typeConsistent reasons { kind } } endCursor hasMore pending } }',
    variables: {
      r: p.arg(c.relations),
      d: p.of(['HEAD', 'TAIL', 'UP']),
      m: p.of([null, 0.5, -1, 2, 'x']),
      f: p.int(),
      a: p.of([null, 'x', p.hostile(), 'WyJyZXZpZXciLCJ2IiwiIiwiciIsInRhaWwiLDld']),
    },
  }),
  (c, p) => ({
    query:
      'query($r: String!) { reviewStats(relation: $r) { relation pending accepted rejected buckets { from to accepted rejected acceptanceRate meanProbability } } }',
    variables: { r: p.arg(c.relations) },
  }),
];

const TOKENS = [
  '{',
  '}',
  '(',
  ')',
  '$',
  '!',
  ':',
  '...',
  '@skip(if: true)',
  '@include(if: $x)',
  'fragment f on Query { health { status } }',
  '__typename',
  '"',
  '\\',
  '#',
  '\u0000',
  '1e999',
  '-0',
  'null',
  ',',
  '[',
  ']',
];

/** Random choices, all from one seeded source. */
export class Picker {
  constructor(readonly random: () => number) {}
  of<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  int(): number {
    return this.of([0, 1, 10, 1000, 10_001, -1, 2 ** 31 - 1]);
  }
  hostile(): string {
    return this.of(HOSTILE);
  }
  /** A real name most of the time, else something hostile or of the wrong type. */
  arg(real: string[]): unknown {
    if (this.chance(0.6)) return this.of(real);
    if (this.chance(0.8)) return this.hostile();
    return this.of([null, 7, [], {}, true]);
  }
}

function mutateText(text: string, p: Picker): string {
  let out = text;
  for (let n = 1 + Math.floor(p.random() * 3); n > 0; n--) {
    const i = Math.floor(p.random() * (out.length + 1));
    const j = Math.min(out.length, i + Math.floor(p.random() * 12));
    switch (p.of(['delete', 'insert', 'duplicate', 'truncate'])) {
      case 'delete':
        out = out.slice(0, i) + out.slice(j);
        break;
      case 'insert':
        out = out.slice(0, i) + p.of(TOKENS) + out.slice(i);
        break;
      case 'duplicate':
        out = out.slice(0, j) + out.slice(i, j) + out.slice(j);
        break;
      default:
        out = out.slice(0, i);
    }
  }
  return out;
}

/** One request: a valid operation (maybe mutated), or a broken one at the HTTP level. */
export function fuzzRequest(c: FuzzContext, p: Picker): FuzzRequest {
  const op = p.of(OPERATIONS)(c, p);
  const key = p.chance(0.8)
    ? p.of([c.adminKey, c.readerKey])
    : p.of([undefined, 'not-a-key', `${c.adminKey}x`]);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const roll = p.random();
  if (roll < 0.4) {
    return {
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify(op),
      kind: 'valid shape',
    };
  }
  if (roll < 0.75) {
    const query = mutateText(op.query, p);
    return {
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query, variables: op.variables }),
      kind: 'mutated query',
    };
  }
  if (roll < 0.85) {
    const body = mutateText(JSON.stringify(op), p);
    return { method: 'POST', path: '/graphql', headers, body, kind: 'mutated JSON' };
  }
  if (roll < 0.92) {
    const query = encodeURIComponent(op.query);
    return {
      method: 'GET',
      path: `/graphql?query=${query}`,
      headers: {},
      body: undefined,
      kind: 'GET query',
    };
  }
  const method = p.of(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST', 'GET']);
  const path = p.of([
    '/graphql',
    '/healthz',
    '/readyz',
    '/metrics',
    '/',
    '/admin',
    '/admin/',
    '/admin/app.js',
    '/admin/../../etc/passwd',
    '/admin/%2e%2e/%2e%2e/package.json',
    `/admin/${p.hostile().slice(0, 40)}`,
    `/${p.hostile().slice(0, 40)}`,
    '//..//graphql',
  ]);
  const contentType = p.of([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'multipart/form-data',
  ]);
  return {
    method,
    path: path.replace(/[^\x21-\x7e]/g, '_'),
    headers: { 'content-type': contentType },
    body: ['HEAD', 'OPTIONS', 'GET'].includes(method)
      ? undefined
      : mutateText(JSON.stringify(op), p),
    kind: 'odd HTTP',
  };
}
