import fs from 'node:fs';
import { seededRandom } from '../../src/seeded-random';

export type Triple = [string, string, string];

/**
 * A seeded graph shaped like the ones users load: endpoints drawn with Zipf weights (rank k with
 * probability ∝ 1/(k+1)), so a few hubs are the tail of tens of thousands of edges (as libc6 in
 * Debian's package graph), and edges repeat as they do in real exports (a repeated line is an
 * edge that is already present when its batch is written).
 */
export interface PowerLawGraph {
  /** Every line, repeats included, in file order. */
  lines: Triple[];
  /** The distinct edges, as `head\u0000relation\u0000tail`. */
  distinct: Set<string>;
}

export function powerLawGraph(options: {
  edges: number;
  entities: number;
  relations: number;
  seed: number;
  prefix?: string;
}): PowerLawGraph {
  const random = seededRandom(options.seed);
  const cumulative = new Float64Array(options.entities);
  let total = 0;
  for (let k = 0; k < options.entities; k++) cumulative[k] = total += 1 / (k + 1);
  const draw = () => {
    const u = random() * total;
    let lo = 0;
    let hi = options.entities - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] as number) > u) hi = mid;
      else lo = mid + 1;
    }
    return `${options.prefix ?? 'p'}:${lo}`;
  };
  const lines: Triple[] = [];
  const distinct = new Set<string>();
  for (let i = 0; i < options.edges; i++) {
    // Heads are spread more evenly than tails (a uniform draw half the time): most entities
    // point at a few popular ones.
    const head =
      random() < 0.5
        ? `${options.prefix ?? 'p'}:${Math.floor(random() * options.entities)}`
        : draw();
    const triple: Triple = [head, `r${Math.floor(random() * options.relations)}`, draw()];
    lines.push(triple);
    distinct.add(triple.join('\u0000'));
  }
  return { lines, distinct };
}

export function writeTriples(file: string, triples: Triple[]): string {
  fs.writeFileSync(file, triples.map((t) => `${t.join('\t')}\n`).join(''));
  return file;
}
