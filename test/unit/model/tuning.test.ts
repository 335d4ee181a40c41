import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { graphSize, tune } from '../../../src/model';
import {
  entityDims,
  neighbours,
  widthCost,
  sampleTrials,
  SEARCH_SPACE,
  WIDE_ENTITY_LIMIT,
} from '../../../src/model/tuning/search-space';
import {
  planHalving,
  totalEpochs,
  totalValidations,
} from '../../../src/model/tuning/successive-halving';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

describe('the budgeted tuner', () => {
  it('plans successive halving that fits the time, with more trials when it can', () => {
    const perEpoch = { epochSeconds: 1, validationSeconds: 0 };
    const roomy = planHalving(3600, perEpoch);
    expect(roomy.trials).toBe(27);
    expect(roomy.rungEpochs).toEqual([
      roomy.rungEpochs[0],
      3 * (roomy.rungEpochs[0] as number),
      9 * (roomy.rungEpochs[0] as number),
    ]);
    expect(totalEpochs(roomy)).toBeLessThanOrEqual(3600);
    const tight = planHalving(60, perEpoch);
    expect(tight.trials).toBeLessThan(27);
    expect(totalEpochs(tight)).toBeLessThanOrEqual(60);
    // 27 trials x 2 epochs, then the best 9 and the preset x 4 more, then 3 and the preset x 12.
    expect(totalEpochs({ trials: 27, eta: 3, rungEpochs: [2, 6, 18] })).toBe(54 + 40 + 48);
    // A budget that affords more than the full run (30 epochs) to 27 trials: the last rung is
    // the full run, and the time left goes to more trials.
    const wide = planHalving(3600, perEpoch, 30);
    expect(wide.rungEpochs).toEqual([4, 12, 36]);
    expect(wide.trials).toBe(243);
    expect(totalEpochs(wide)).toBeLessThanOrEqual(3600);
    expect(planHalving(1000, perEpoch, 30).trials).toBe(81);
    // A full run longer than the rungs the budget affords changes nothing.
    expect(planHalving(3600, perEpoch, 500)).toEqual(roomy);
    // Trials validate once per rung: 27 + 10 + 4 validations, not one per epoch.
    expect(totalValidations({ trials: 27, eta: 3, rungEpochs: [2, 6, 18] })).toBe(41);
    const costs = { epochSeconds: 1, validationSeconds: 20 };
    const validated = planHalving(3600, costs);
    const cost = (p: typeof validated) =>
      totalEpochs(p) * costs.epochSeconds + totalValidations(p) * costs.validationSeconds;
    expect(cost(validated)).toBeLessThanOrEqual(3600);
    // One more epoch in the first rung (and so three and nine more later) would not fit.
    const first = validated.rungEpochs[0] as number;
    const longer = validated.rungEpochs.map((e) => (e / first) * (first + 1));
    expect(cost({ ...validated, rungEpochs: longer })).toBeGreaterThan(3600);
  });

  it('tries the sized preset, then its one-setting neighbours, then random points', () => {
    const sized = {
      relationDim: 10,
      entityDim: 200,
      lr: 0.003,
      dropoutIn: 0.3,
      dropoutH1: 0.2,
      dropoutH2: 0.4,
      labelSmoothing: 0.05,
      batchSize: 128,
      inverseMode: 'new_relation' as const,
    };
    const trials = sampleTrials(27, 42, sized);
    expect(trials).toHaveLength(27);
    expect(trials[0]).toEqual({}); // the sized preset itself
    expect(new Set(trials.map((t) => JSON.stringify(t))).size).toBe(27);
    expect(sampleTrials(27, 42, sized)).toEqual(trials);
    expect(sampleTrials(27, 43, sized)).not.toEqual(trials);
    // Every setting moves one step each way where it can (d_r 10 has no smaller value here).
    const near = neighbours(sized);
    expect(trials.slice(1, 1 + near.length)).toEqual(near);
    expect(near).toEqual(
      expect.arrayContaining([
        { relationDim: 30 },
        { lr: 0.006 },
        { lr: 0.0015 },
        { dropoutIn: 0.1, dropoutH1: 0.1, dropoutH2: 0.2 },
        { dropoutIn: 0.4, dropoutH1: 0.2, dropoutH2: 0.4 },
        { entityDim: 300 },
        { entityDim: 100 },
        { batchSize: 64 },
        { batchSize: 256 },
        { labelSmoothing: 0.1 },
        { labelSmoothing: 0 },
        { inverseMode: 'same_relation' },
        { loss: 'softmax' },
      ]),
    );
    expect(near).toHaveLength(13);
    // The heaviest level has no heavier neighbour.
    const heavy = neighbours({ ...sized, dropoutIn: 0.4 });
    expect(heavy).toContainEqual({ dropoutIn: 0.3, dropoutH1: 0.2, dropoutH2: 0.4 });
    expect(heavy).toHaveLength(12);
    // A step that lands on the preset's own value is not a trial: batch 32 has no smaller step.
    expect(neighbours({ ...sized, batchSize: 32 })).not.toContainEqual({ batchSize: 32 });
    expect(neighbours({ ...sized, batchSize: 32 })).toHaveLength(12);
    // The first pass touches every setting, so a short search still tries each.
    expect(sampleTrials(9, 42, sized).slice(1)).toEqual([
      { relationDim: 30 },
      { lr: 0.006 },
      { dropoutIn: 0.1, dropoutH1: 0.1, dropoutH2: 0.2 },
      { entityDim: 300 },
      { batchSize: 64 },
      { labelSmoothing: 0.1 },
      { inverseMode: 'same_relation' },
      { loss: 'softmax' },
    ]);
    for (const t of trials.slice(1 + near.length)) {
      expect(SEARCH_SPACE.relationDim).toContain(t.relationDim);
      expect(SEARCH_SPACE.lr).toContain(t.lr);
    }
  });

  it('searches the loss, entity dimensions up to 512 on small graphs, lr up to 0.02, light dropout', () => {
    const sized = {
      relationDim: 30,
      entityDim: 300,
      lr: 0.01,
      dropoutIn: 0.1,
      dropoutH1: 0.1,
      dropoutH2: 0.2,
      labelSmoothing: 0.1,
      batchSize: 128,
      inverseMode: 'new_relation' as const,
      loss: 'softmax' as const,
    };
    const small = { entities: 2_000 };
    const large = { entities: WIDE_ENTITY_LIMIT + 1 };
    expect(entityDims(small)).toEqual([100, 200, 300, 400, 512]);
    expect(entityDims(large)).toEqual([100, 200, 300]);
    // One step each way: the wider width only where the graph is small; the other loss.
    expect(neighbours(sized, small)).toContainEqual({ entityDim: 400 });
    expect(neighbours(sized, large)).not.toContainEqual(
      expect.objectContaining({ entityDim: 400 }),
    );
    expect(neighbours(sized, small)).toContainEqual({ loss: 'bce' });
    expect(neighbours(sized, small)).toContainEqual({ lr: 0.02 });
    // One level lighter than the light dropout: the very light one.
    expect(neighbours(sized, small)).toContainEqual({
      dropoutIn: 0.05,
      dropoutH1: 0,
      dropoutH2: 0.1,
    });
    // Random points cover the new values on a small graph, never a wide width on a large one.
    const many = sampleTrials(400, 7, sized, small);
    const seen = (key: string) => new Set(many.map((t) => (t as Record<string, unknown>)[key]));
    expect(seen('entityDim')).toEqual(new Set([undefined, 100, 200, 300, 400, 512]));
    expect(seen('loss')).toEqual(new Set([undefined, 'bce', 'softmax']));
    expect(seen('lr')).toContain(0.02);
    expect(seen('dropoutIn')).toContain(0.05);
    for (const t of sampleTrials(400, 7, sized, large)) {
      expect([undefined, 100, 200, 300]).toContain(t.entityDim);
    }
    expect(Math.max(...SEARCH_SPACE.lr)).toBe(0.02);
    // The plan times wider trials by the square of their width, narrower ones at the preset's.
    expect(widthCost({}, 200)).toBe(1);
    expect(widthCost({ entityDim: 100 }, 200)).toBe(1);
    expect(widthCost({ entityDim: 400 }, 200)).toBe(4);
  });

  it('searches within the budget, keeps the user settings, and writes every trial', async () => {
    const data = { dir: writeDatasetDir(classGraph(200)) };
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-tune-'));
    const lines: string[] = [];
    const started = Date.now();
    const result = await tune(data, 'default', { threads: 2 }, await graphSize(data), 12, {
      outDir,
      seed: 5,
      onTrial: (line) => lines.push(line),
    });
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(12 + 3);
    expect(result.trials).toHaveLength(result.plan.trials);
    // Every rung a trial ran is reported; the search stops on time, so a busy machine may leave
    // some of the plan's trials unrun (their records have no rungs).
    const rungsRun = result.trials.reduce((sum, t) => sum + t.rungs.length, 0);
    expect(lines).toHaveLength(rungsRun);
    expect(result.trials.filter((t) => t.rungs.length > 0).length).toBeGreaterThan(1);
    expect(result.settings.threads).toBe(2);
    for (const trial of result.trials) expect(trial.settings.threads).toBe(2);
    // The winner has the best validation MRR of the trials that reached the furthest rung.
    const last = Math.max(...result.trials.map((t) => t.rungs.length));
    const finalists = result.trials.filter((t) => t.rungs.length === last);
    // The sized preset goes on to every rung the search reaches, whatever its rank.
    expect(result.trials[0]?.rungs).toHaveLength(last);
    const best = Math.max(...finalists.map((t) => t.rungs[last - 1]?.validMrr ?? 0));
    const report = JSON.parse(fs.readFileSync(result.reportFile, 'utf8')) as {
      winner: number;
      trials: { id: number; rungs: { validMrr: number }[] }[];
      preset: { validMrr: number | null } | null;
      kept: string;
    };
    const winner = report.trials.find((t) => t.id === report.winner);
    expect(winner?.rungs.at(-1)?.validMrr).toBe(best);
    // The kept model is the best validated of the winner continued, the winning trial and (when
    // the winner is not the preset and time was left) the sized preset's own run.
    const presetMrr = report.preset?.validMrr ?? 0;
    expect(report.preset !== null && report.winner === 0).toBe(false);
    expect(result.validMrr).toBe(Math.max(result.final?.valid?.overall.mrr ?? 0, best, presetMrr));
    expect(report.kept).toBe(result.kept);
    // The final run went on from the winner's last rung, epochs counted on from there.
    const winnerEpochs = result.trials.find((t) => t.id === report.winner)?.rungs.at(-1)?.epochs;
    expect(result.final?.epochsRun).toBeGreaterThan(winnerEpochs as number);
    expect(result.config.epochs).toBeGreaterThan(winnerEpochs as number);
    expect(result.final?.valid?.overall.mrr).toBeGreaterThanOrEqual(best);
    expect(fs.existsSync(path.join(outDir, 'manifest.json'))).toBe(true);
    expect(fs.existsSync(path.join(outDir, 'trials'))).toBe(false);
  });
});
