/**
 * Is a gap to ConvE's published numbers a protocol artefact? ConvE's evaluation
 * (TimDettmers/ConvE, evaluation.py) ranks float32 sigmoid probabilities with torch.sort, so
 * candidates whose probability saturates to exactly 1.0 tie with the target and the sort's order
 * breaks the tie. Our engine ranks logits with ties counted as the mean of the optimistic and
 * pessimistic rank. This scores every test query of a saved model both ways.
 *
 *   npx tsx bench/quality/conve-protocol.ts [--data <dir>] <model dir> <dataset>
 *       [split file, default test.txt]
 *
 * `<dataset>`: a name under --data (or KGC_DATASETS), or a folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Scorer } from '../../src/model';
import { datasetDir, takeDataOption } from '../datasets';

type Triple = [string, string, string];

function readTriples(dir: string, file: string): Triple[] {
  return fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t') as Triple);
}

/** torch.sigmoid in float32: exactly 1.0 once exp(-x) < 2^-24 (x > ~16.6). */
const sigmoid32 = (x: number) => Math.fround(1 / (1 + Math.fround(Math.exp(-x))));

function summarise(ranks: number[]): string {
  const share = (k: number) => (ranks.filter((r) => r <= k).length / ranks.length).toFixed(3);
  const mrr = ranks.reduce((sum, r) => sum + 1 / r, 0) / ranks.length;
  return `MRR ${mrr.toFixed(4)}  H@1 ${share(1)}  H@3 ${share(3)}  H@10 ${share(10)}`;
}

function main(): void {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const [modelDir, dataset, split = 'test.txt'] = rest;
  if (!modelDir || !dataset)
    throw new Error('usage: conve-protocol.ts [--data <dir>] <model dir> <dataset> [split file]');
  const dataDir = datasetDir(dataset, data);
  const scorer = Scorer.load(modelDir);
  // Filter: every known answer of the query in train+valid+test except the target.
  const known = new Map<string, Set<number>>();
  const addKnown = (key: string, entity: number) => {
    const set = known.get(key) ?? new Set<number>();
    set.add(entity);
    known.set(key, set);
  };
  for (const file of ['train.txt', 'valid.txt', 'test.txt']) {
    for (const [h, r, t] of readTriples(dataDir, file)) {
      addKnown(`tail|${h}|${r}`, scorer.entity(t));
      addKnown(`head|${t}|${r}`, scorer.entity(h));
    }
  }
  const ours: number[] = [];
  const optimistic: number[] = [];
  const pessimistic: number[] = [];
  let saturatedTargets = 0;
  for (const [h, r, t] of readTriples(dataDir, split)) {
    for (const direction of ['tail', 'head'] as const) {
      const [given, answer] = direction === 'tail' ? [h, t] : [t, h];
      const target = scorer.entity(answer);
      const exclude = [...(known.get(`${direction}|${given}|${r}`) ?? [])].filter(
        (e) => e !== target,
      );
      const scored = scorer.topK(scorer.entity(given), scorer.relation(r), scorer.entities.length, {
        exclude,
        direction,
      });
      const targetLogit = scored.find((s) => s.index === target)?.logit ?? Number.NaN;
      const targetProbability = sigmoid32(targetLogit);
      if (targetProbability === 1) saturatedTargets += 1;
      let above = 0;
      let tied = 0;
      let aboveP = 0;
      let tiedP = 0;
      for (const s of scored) {
        if (s.index === target) continue;
        if (s.logit > targetLogit) above += 1;
        else if (s.logit === targetLogit) tied += 1;
        const p = sigmoid32(s.logit);
        if (p > targetProbability) aboveP += 1;
        else if (p === targetProbability) tiedP += 1;
      }
      ours.push(1 + above + tied / 2);
      optimistic.push(1 + aboveP);
      pessimistic.push(1 + aboveP + tiedP);
    }
  }
  process.stdout.write(
    `${ours.length} queries, ${saturatedTargets} targets with probability exactly 1.0 in float32\n` +
      `engine rule (logits, ties = mean rank):   ${summarise(ours)}\n` +
      `ConvE rule, ties broken in our favour:    ${summarise(optimistic)}\n` +
      `ConvE rule, ties broken against us:       ${summarise(pessimistic)}\n`,
  );
}

main();
