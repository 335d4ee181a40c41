/**
 * Fold-in on a served model of a million entities (issue 57): what one fold-in batch costs the
 * serving process's event loop and memory. The server's own FoldInService (negatives from the
 * version's graph, the canary, the swap) folds in new entities batch by batch from a synthetic
 * graph source (the version's million entities in pages, as the scan reads Neo4j, plus the new
 * ones, each with edges to known entities); a timer on the event loop records every gap. Prints,
 * per batch, the fold-in's time and the longest event-loop gap while it ran, and the process's
 * private memory per folded entity against the entity matrix's size.
 *
 *   npx tsx bench/freshness/fold-in-at-scale.ts --work <dir> [--entities 1000000] [--edges 3000000]
 *     [--batches 8] [--batch 256] [--edges-per-entity 10]
 *
 * The first run generates the graph (bench/scale/generate.ts's generator) and a model trained
 * for a few batches with the engine's CLI (its costs matter here, not its quality) with its
 * graph.bin; later runs reuse them from `--work`. Run alone, with `node --expose-gc --import tsx`
 * (memory is measured after a collection).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readFoldIn } from '../../src/config/fold-in-config';
import { FoldInService } from '../../src/model/fold-in/fold-in-service';
import type { FoldInSource, Neighbourhood } from '../../src/model/fold-in/fold-in-source';
import { writeVersionGraph } from '../../src/model/rules/version-graph';
import { loadServingModel } from '../../src/model/serving-model';
import { probe } from '../scale/train-probe';
import { writeScaleGraph } from '../scale/write-scale-graph';

/** The process's resident memory, MiB: private (anonymous) pages and mapped files. */
function memoryMiB(): { private: number; mapped: number } {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { private: field('RssAnon') / 1024, mapped: field('RssFile') / 1024 };
}

/** Records the longest gap between turns of a 1 ms timer (the event loop's longest stall). */
class StallMeter {
  private last = performance.now();
  private longest = 0;
  private readonly timer = setInterval(() => {
    const now = performance.now();
    this.longest = Math.max(this.longest, now - this.last);
    this.last = now;
  }, 1);

  /** The longest gap since the last call, less the timer's own 1 ms. */
  take(): number {
    // A stall that ends in this turn has not reached the timer yet.
    const now = performance.now();
    const longest = Math.max(0, Math.max(this.longest, now - this.last) - 1);
    this.longest = 0;
    this.last = now;
    return longest;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

function readTriples(file: string): [string, string, string][] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split('\t') as [string, string, string]);
}

/** The graph and model under `work`, made on the first run. */
async function prepare(work: string, entities: number, edges: number): Promise<string> {
  const graphDir = path.join(work, 'graph');
  const modelDir = path.join(work, 'model');
  if (!fs.existsSync(path.join(graphDir, 'train.txt'))) {
    console.log(`generating ${entities} entities, ${edges} edges in ${graphDir} ...`);
    writeScaleGraph(graphDir, {
      entities,
      edges,
      seed: 1,
      validFraction: 0.01,
      testFraction: 0.01,
    });
  }
  if (!fs.existsSync(path.join(modelDir, 'graph.bin'))) {
    console.log(`training a few batches into ${modelDir} (the engine's CLI) ...`);
    probe(graphDir, 4, undefined, modelDir);
    const train = readTriples(path.join(graphDir, 'train.txt'));
    const names = new Map<string, number>();
    const relationNames = new Map<string, number>();
    const id = (map: Map<string, number>, name: string) => {
      let i = map.get(name);
      if (i === undefined) map.set(name, (i = map.size));
      return i;
    };
    const heads = new Int32Array(train.length);
    const relations = new Int32Array(train.length);
    const tails = new Int32Array(train.length);
    train.forEach(([h, r, t], i) => {
      heads[i] = id(names, h);
      relations[i] = id(relationNames, r);
      tails[i] = id(names, t);
    });
    console.log(
      await writeVersionGraph(
        {
          entities: [...names.keys()],
          relationNames: [...relationNames.keys()],
          heads,
          relations,
          tails,
        },
        modelDir,
      ),
    );
  }
  return modelDir;
}

/**
 * The version's entities (pages of 10,000, degree 1: never queued) and the new entities of the
 * batches released so far, each with `degree` edges to known entities.
 */
class SyntheticGraph implements FoldInSource {
  released = 0;

  constructor(
    private readonly known: readonly string[],
    private readonly relations: readonly string[],
    private readonly degree: number,
  ) {}

  newId(i: number): string {
    return `new/${i}`;
  }

  async stamp(): Promise<string> {
    return `released ${this.released}`;
  }

  async *entityPages(): AsyncIterable<{ ids: string[]; degrees: number[] }> {
    for (let first = 0; first < this.known.length; first += 10_000) {
      // A page comes back from Neo4j in a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      const ids = this.known.slice(first, first + 10_000);
      yield { ids, degrees: ids.map(() => 1) };
    }
    const ids = Array.from({ length: this.released }, (_, i) => this.newId(i));
    yield { ids, degrees: ids.map(() => this.degree) };
  }

  async neighbourhoods(ids: readonly string[]): Promise<(Neighbourhood | undefined)[]> {
    return ids.map((id) => {
      const n = Number(id.slice('new/'.length));
      // Seeded by the entity: the same id always has the same edges.
      let x = n * 2654435761 + 1;
      const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
      return {
        labels: [],
        edges: Array.from({ length: this.degree }, () => ({
          relation: this.relations[next() % this.relations.length]!,
          other: this.known[next() % this.known.length]!,
          outgoing: next() % 2 === 0,
        })),
      };
    });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      work: { type: 'string' },
      entities: { type: 'string', default: '1000000' },
      edges: { type: 'string', default: '3000000' },
      batches: { type: 'string', default: '8' },
      batch: { type: 'string', default: '256' },
      'edges-per-entity': { type: 'string', default: '10' },
    },
  });
  if (!values.work)
    throw new Error('--work <dir> is required (the graph and model are kept there)');
  const [batches, batch] = [Number(values.batches), Number(values.batch)];
  const modelDir = await prepare(values.work, Number(values.entities), Number(values.edges));

  const loadStart = memoryMiB();
  const base = await loadServingModel(modelDir);
  // The 8-bit rows and the first query's buffers, as serving's warm-up makes them.
  await base.scorer.topKBatchAsync([{ entity: 0, relation: 0 }], 10);
  const d = base.scorer.entityVectors([0])[0]!.length;
  const n = base.scorer.entities.length;
  const matrixMiB = (n * d * 4) / 2 ** 20;
  const source = new SyntheticGraph(
    base.scorer.entities,
    base.scorer.relations,
    Number(values['edges-per-entity']),
  );
  const logged: { ms: number; entities: number }[] = [];
  const settings = { ...readFoldIn({}), maxBatch: batch, pollMs: 3_600_000 };
  const service = new FoldInService(() => base, source, settings, {
    info: (details) => {
      const { ms, entities } = details as { ms?: number; entities?: number };
      if (ms !== undefined && entities !== undefined) logged.push({ ms, entities });
    },
    warn: (details, message) => console.warn(message, JSON.stringify(details).slice(0, 300)),
  });
  const meter = new StallMeter();
  // The first fold-in makes the version's negatives and canary: timed apart from the batches.
  source.released = 1;
  let t = performance.now();
  await service.catchUp();
  const firstMs = performance.now() - t;
  const firstStall = meter.take();
  // Run with node --expose-gc to count live memory only (tsx passes it on).
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  collect();
  const before = memoryMiB();
  const rows: string[] = [];
  for (let b = 0; b < batches; b++) {
    source.released = 1 + (b + 1) * batch;
    // The collection before this batch is not its stall.
    await new Promise((resolve) => setTimeout(resolve, 5));
    meter.take();
    t = performance.now();
    await service.catchUp();
    const ms = performance.now() - t;
    const stall = meter.take();
    collect();
    const privateMiB = memoryMiB().private - before.private;
    rows.push(
      `| ${b + 1} | ${service.foldedInCount()} | ${ms.toFixed(0)} | ${logged.at(-1)?.ms ?? '-'} | ${stall.toFixed(1)} | ${privateMiB.toFixed(1)} |`,
    );
  }
  meter.stop();
  collect();
  const after = memoryMiB();
  const folded = service.foldedInCount();
  await service.stop();
  const grownKiB = ((after.private - before.private) * 1024) / Math.max(1, folded - 1);
  console.log(
    [
      '',
      `${n.toLocaleString('en-US')} entities, d_e ${d} (entity matrix ${matrixMiB.toFixed(0)} MiB), ` +
        `${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}; fold-in ` +
        `${JSON.stringify({ steps: settings.steps, candidates: settings.candidates, maxHarm: settings.maxHarm })}, ` +
        `${values['edges-per-entity']} edges per new entity`,
      '',
      `First fold-in (1 entity; makes the version's negatives and canary): ${firstMs.toFixed(0)} ms, ` +
        `longest event-loop stall ${firstStall.toFixed(1)} ms.`,
      '',
      '| batch | folded in | scan + fold-in + swap ms | engine fit + canary ms (log) | longest event-loop stall ms | private memory since batch 0, MiB |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Memory: loaded ${(before.private - loadStart.private).toFixed(0)} MiB private, ` +
        `${(before.mapped - loadStart.mapped).toFixed(0)} MiB mapped; after ${folded - 1} more ` +
        `entities folded in: +${(after.private - before.private).toFixed(1)} MiB private ` +
        `(${grownKiB.toFixed(1)} KiB per folded entity; a row is ${((d * 4) / 1024).toFixed(1)} KiB), ` +
        `${(after.mapped - before.mapped).toFixed(0)} MiB mapped.`,
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
