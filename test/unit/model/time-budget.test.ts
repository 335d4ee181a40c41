import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  budgetTrainOptions,
  epochsThatFit,
  graphSize,
  longerBudgetAdvice,
  planTimeBudget,
  resolveTrainingConfig,
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
    // Where the time binds (fewer epochs than the preset's 500 fit), room for epochs that run
    // faster than estimated (twice the planned, never past the preset's count), annealing to the
    // planned final lr.
    const preset = resolveTrainingConfig('default', overrides, await graphSize(data));
    expect(plan.config.epochs).toBe(
      plan.epochs < preset.epochs
        ? Math.min(Math.ceil(plan.epochs * 2), preset.epochs)
        : plan.epochs,
    );
    const resolved = resolveTrainingConfig(
      'default',
      overrides,
      await graphSize(data),
      plan.epochs,
    );
    expect(plan.config.decay ** plan.config.epochs).toBeCloseTo(
      resolved.decay ** resolved.epochs,
      12,
    );
    expect(resolved.decay).toBeLessThan(1);
    // The user's patience (0 here) stays; see below for the budget's own.
    expect(plan.config.patience).toBe(0);
    expect(plan.estimate.epochSeconds).toBeGreaterThan(0);
    expect(plan.trainingSeconds).toBeLessThanOrEqual(budgetSeconds);
    const validations: TrainingProgress[] = [];
    const rates: number[] = [];
    const summary = await train(data, plan.config, {
      outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-budget-')),
      ...budgetTrainOptions(plan),
      onProgress: (e) => {
        if (e.kind === 'validation') validations.push(e);
        if (e.kind === 'epoch' && e.lr !== undefined) rates.push(e.lr);
      },
    });
    const seconds = (Date.now() - started) / 1000;
    // The budget holds (data loading and saving the model take a little more).
    expect(seconds).toBeLessThan(budgetSeconds + 1.5);
    expect(['completed', 'time_limit']).toContain(summary.stop);
    expect(summary.valid).toBeDefined();
    expect(validations.at(-1)?.epoch).toBe(summary.epochsRun);
    // The anneal follows the epochs that fit: the rate falls, never rises.
    expect(rates.at(-1)).toBeLessThan(rates[0] as number);
    for (let i = 1; i < rates.length; i++)
      expect(rates[i]).toBeLessThanOrEqual(rates[i - 1] as number);
  });

  it('is patient for a tenth of the planned validations unless told otherwise', async () => {
    const data = { dir: writeDatasetDir(classGraph(300)) };
    const size = await graphSize(data);
    const overrides = { entityDim: 32, relationDim: 8, threads: 2, evalEvery: 1 };
    const plan = await planTimeBudget(data, 'default', overrides, size, 60);
    // The `default` preset's own rule (a tenth of its planned validations, at least 5), with or
    // without a budget.
    expect(plan.config.patience).toBe(Math.round(plan.epochs / 10));
    expect(plan.config.patience).toBeGreaterThan(5);
    expect(resolveTrainingConfig('default', overrides, size).patience).toBe(plan.config.patience);
    const pinned = await planTimeBudget(data, 'default', { ...overrides, patience: 3 }, size, 60);
    expect(pinned.config.patience).toBe(3);
    // The preset's own epoch count (500) fits in a minute here: the time does not bind, so no
    // headroom either.
    expect(plan.epochs).toBe(500);
    expect(plan.config.epochs).toBe(500);
  });

  it('says whether a longer budget would likely help, from a fit of a - b / epochs to the curve', () => {
    // Exactly 0.4 - 2 / epoch: twice the epochs add b / 2E = 2 / 60.
    const rising = [10, 15, 20, 25, 30].map((epoch) => ({ epoch, mrr: 0.4 - 2 / epoch }));
    expect(longerBudgetAdvice(rising)).toMatch(
      /still rising \(0\.3333 at epoch 30\).*about \+0\.033 /,
    );
    // An annealed run's end: flat over its last three validations, rising over the run.
    const annealed = [
      ...[25, 45, 65, 85].map((epoch) => ({ epoch, mrr: 0.37 - 2.4 / epoch })),
      { epoch: 92, mrr: 0.3448 },
      { epoch: 93, mrr: 0.3459 },
      { epoch: 94, mrr: 0.3453 },
    ];
    expect(longerBudgetAdvice(annealed)).toMatch(/still rising/);
    const flat = [10, 20, 30, 40].map((epoch, i) => ({ epoch, mrr: 0.3 + 0.0001 * i }));
    expect(longerBudgetAdvice(flat)).toMatch(/levelled off/);
    const peaked = [10, 20, 30, 40, 50, 60].map((epoch) => ({
      epoch,
      mrr: 0.3 - 0.0001 * (epoch - 20) ** 2,
    }));
    expect(longerBudgetAdvice(peaked)).toMatch(/peaked at epoch 20 of 60 \(0\.3000\)/);
    expect(
      longerBudgetAdvice([
        { epoch: 1, mrr: 0.1 },
        { epoch: 2, mrr: 0.2 },
      ]),
    ).toMatch(/too few/);
  });
});
