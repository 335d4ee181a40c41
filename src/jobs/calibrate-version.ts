import { rejectionsOf } from '../graph';
import type { EdgeKey } from '../graph';
import {
  AnsweredQuestions,
  calibrateModelDir,
  dirRules,
  Scorer,
  withRuleEvidence,
  writeCanaryFile,
} from '../model';
import type { CalibrationSummary, TrainingArrays } from '../model';
import { toModelIds } from './model-ids';
import type { StepContext } from './step-context';

/** FNV-1a of a rejection: a stable choice of fit or measure set, the same every version. */
function stableHash(edge: EdgeKey): number {
  let h = 0x811c9dc5;
  for (const ch of `${edge.head}\t${edge.relation}\t${edge.tail}`) {
    h ^= ch.codePointAt(0) as number;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Fits the version's calibrators (calibration.json, reliability.svg in `dir`): positives are
 * its held-out edges (fitted on valid, measured on test); negatives people's rejections of its
 * relations, two in three fitted on and the third measured on, stably by the triple, plus
 * sampled corruptions. The logits are the served ones (the model's plus its rules' evidence
 * where the version's combiner adds it: run after the combine step, `loaded` the model that step
 * asked). Null when the version has no validation edges (the sigmoid serves).
 */
export async function calibrateVersion(
  ctx: StepContext,
  dir: string,
  data: TrainingArrays,
  version: string,
  loaded?: Scorer,
): Promise<CalibrationSummary | null> {
  const scorer = loaded ?? Scorer.load(dir);
  const { walker, combiner } = await dirRules(dir, scorer);
  // One memory of the walks for the served logits and the edge calibrator's features.
  const walks = walker && new AnsweredQuestions(walker);
  const toModel = toModelIds(scorer, data);
  const fitNegatives: number[] = [];
  const measureNegatives: number[] = [];
  for (const edge of await rejectionsOf(ctx.db, data.relations)) {
    const h = scorer.findEntity(edge.head);
    const r = scorer.findRelation(edge.relation);
    const t = scorer.findEntity(edge.tail);
    if (h === undefined || r === undefined || t === undefined) continue;
    (stableHash(edge) % 3 === 0 ? measureNegatives : fitNegatives).push(h, r, t);
  }
  // The version's canary for fold-in: held-out test edges between entities it knows.
  writeCanaryFile(dir, toModel(data.test), ctx.split.seed);
  const known = new Uint32Array(data.train.length + data.valid.length + data.test.length);
  known.set(data.train, 0);
  known.set(data.valid, data.train.length);
  known.set(data.test, data.train.length + data.valid.length);
  const summary = await calibrateModelDir(
    dir,
    {
      known: toModel(known),
      fit: {
        name: 'valid',
        positives: toModel(data.valid),
        negatives: Uint32Array.from(fitNegatives),
      },
      measure: {
        name: 'test',
        positives: toModel(data.test),
        negatives: Uint32Array.from(measureNegatives),
      },
      seed: ctx.split.seed,
      ...(walks ? { rules: walks } : {}),
    },
    `kgc ${version}: reliability on held-out test edges`,
    combiner ? withRuleEvidence(scorer, combiner, walks) : scorer,
  );
  if (summary?.before && summary.after) {
    const { before, after, fitMix } = summary;
    ctx.log(
      `calibrated on ${fitMix.positives} held-out positives, ${fitMix.rejected} rejections, ` +
        `${fitMix.range} range and ${fitMix.uniform} uniform corruptions: ECE ` +
        `${before.ece.toFixed(4)} -> ${after.ece.toFixed(4)} on test`,
    );
  }
  return summary;
}
