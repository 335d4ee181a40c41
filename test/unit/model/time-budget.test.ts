import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  epochsThatFit,
  graphSize,
  longerBudgetAdvice,
  planTimeBudget,
  train,
  TrainingProgress,
} from '../../../src/model';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

describe('a time budget', () => {
  it('counts the epochs, with their share of validations, that fit', () => {
    const estimate = { epochSeconds: 10, validationSeconds: 20 };
    expect(epochsThatFit(600, estimate, 1)).toBe(20); // 30 s per epoch
    expect(epochsThatFit(600, estimate, 10)).toBe(50); // 12 s per epoch
    expect(epochsThatFit(600, estimate, 0)).toBe(60);
    expect(epochsThatFit(5, estimate, 1)).toBe(1);
  });

  it('plans a run on this machine and stops it on time with a validated model', async () => {
    const data = { dir: writeDatasetDir(classGraph(300)) };
    const budgetSeconds = 4;
    const overrides = { entityDim: 32, relationDim: 8, threads: 2, evalEvery: 1, patience: 0 };
    const started = Date.now();
    const plan = await planTimeBudget(
      data,
      'default',
      overrides,
      await graphSize(data),
      budgetSeconds,
    );
    expect(plan.epochs).toBeGreaterThan(1);
    expect(plan.config.epochs).toBe(plan.epochs);
    expect(plan.estimate.epochSeconds).toBeGreaterThan(0);
    expect(plan.trainingSeconds).toBeLessThanOrEqual(budgetSeconds);
    const validations: TrainingProgress[] = [];
    const summary = await train(data, plan.config, {
      outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-budget-')),
      timeLimitSeconds: plan.trainingSeconds,
      onProgress: (e) => e.kind === 'validation' && validations.push(e),
    });
    const seconds = (Date.now() - started) / 1000;
    // The budget holds (data loading and saving the model take a little more).
    expect(seconds).toBeLessThan(budgetSeconds + 1.5);
    expect(['completed', 'time_limit']).toContain(summary.stop);
    expect(summary.valid).toBeDefined();
    expect(validations.at(-1)?.epoch).toBe(summary.epochsRun);
  });

  it('says whether a longer budget would likely help, from the end of the validation curve', () => {
    const rising = [
      { epoch: 10, mrr: 0.2 },
      { epoch: 20, mrr: 0.25 },
      { epoch: 30, mrr: 0.28 },
    ];
    expect(longerBudgetAdvice(rising)).toMatch(
      /still rising \(\+0\.0040 per epoch.*about \+0\.060/,
    );
    const flat = [
      { epoch: 10, mrr: 0.3 },
      { epoch: 20, mrr: 0.301 },
    ];
    expect(longerBudgetAdvice(flat)).toMatch(/levelled off/);
    expect(longerBudgetAdvice([{ epoch: 1, mrr: 0.1 }])).toMatch(/too few/);
  });
});
