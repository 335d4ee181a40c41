import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeEngine } from '../../src/model/native-engine';
import { runCli } from '../support/cli';
import { classGraph, writeDatasetDir } from '../support/generated-graph';

const METRIC_KEYS = ['mrr', 'mr', 'hits1', 'hits3', 'hits10'];

describe('kgc train and kgc evaluate', () => {
  const dataset = writeDatasetDir(classGraph(80));
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-train-cli-')), 'model');

  it('trains with a preset and prints a JSON summary as the last line', () => {
    const result = runCli(
      [
        'train',
        '--dataset',
        dataset,
        '--preset',
        'default',
        '--epochs',
        '4',
        '--eval-every',
        '2',
        '--patience',
        '3',
        '--weight-average',
        '0.25',
        '--loss',
        'softmax',
        '--out',
        out,
        '--json',
      ],
      {},
    );
    expect(result.stderr).toMatch(/epoch=4\/4 loss=/);
    expect(result.stderr).toMatch(/validation epoch=2 mrr=/);
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() as string) as Record<
      string,
      number
    >;
    for (const key of [...METRIC_KEYS, 'epochs', 'seconds', 'epochSeconds']) {
      expect(typeof summary[key]).toBe('number');
    }
    expect(summary.epochs).toBe(4);
    expect(summary.epochSeconds).toBeLessThanOrEqual(summary.seconds as number);
    expect(fs.existsSync(path.join(out, 'manifest.json'))).toBe(true);
    // The flags reach the engine's config.
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
      config: {
        epochs: number;
        eval_every: number;
        patience: number;
        weight_average: number;
        loss: string;
      };
    };
    expect(manifest.config).toMatchObject({
      epochs: 4,
      eval_every: 2,
      patience: 3,
      weight_average: 0.25,
      loss: 'softmax',
    });
  });

  it('trains within a time budget, saying what it planned and what a longer budget would give', () => {
    const started = Date.now();
    const result = runCli(
      ['train', '--dataset', dataset, '--time-budget', '6s', '--threads', '2', '--json'],
      {},
    );
    const seconds = (Date.now() - started) / 1000;
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /Time budget 6 s: an epoch takes about [\d.]+ s here .* planned \d+ epochs/,
    );
    expect(result.stdout).toMatch(/Longer budget: /);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
      stop: string;
      mrr: number;
    };
    expect(['completed', 'early_stopped', 'time_limit']).toContain(summary.stop);
    expect(summary.mrr).toBeGreaterThan(0);
    // The CLI's own start (Node, the engine, the dataset) comes on top of the budget.
    expect(seconds).toBeLessThan(6 + 6);
    const bad = runCli(['train', '--dataset', dataset, '--time-budget', 'soon'], {});
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--time-budget must be a duration such as 45m/);
  });

  it('tunes within a budget and writes every trial beside the model', () => {
    const tuned = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-tune-cli-')), 'model');
    const result = runCli(
      ['train', '--dataset', dataset, '--tune', '8s', '--threads', '2', '--out', tuned],
      {},
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^trial 0 rung 1\//m);
    expect(result.stdout).toMatch(/Tuned \d+ trials \([\d/]+ epochs per rung\)/);
    const report = JSON.parse(fs.readFileSync(path.join(tuned, 'tuning.json'), 'utf8')) as {
      trials: unknown[];
      settings: { threads?: number };
    };
    expect(report.trials.length).toBeGreaterThanOrEqual(3);
    expect(report.settings.threads).toBe(2);
    expect(fs.existsSync(path.join(tuned, 'manifest.json'))).toBe(true);
  });

  it('evaluates the saved model on a split', () => {
    const result = runCli(
      ['evaluate', '--model', out, '--dataset', dataset, '--split', 'valid', '--json'],
      {},
    );
    expect(result.status).toBe(0);
    const metrics = JSON.parse(result.stdout.trim().split('\n').pop() as string) as Record<
      string,
      number
    >;
    // Four epochs on a tiny graph: the values are early, only their consistency is fixed.
    const { mrr, mr, hits1, hits3, hits10 } = metrics;
    expect(mrr).toBeGreaterThan(0);
    expect(mrr).toBeLessThanOrEqual(1);
    expect(mr).toBeGreaterThanOrEqual(1);
    expect(hits1).toBeLessThanOrEqual(hits3 as number);
    expect(hits3).toBeLessThanOrEqual(hits10 as number);
    expect(hits10).toBeLessThanOrEqual(1);
  });

  it('evaluates typed (--typed, --labels): ranks never worse, a bad label file named by line', () => {
    const json = (args: string[]) => {
      const result = runCli(args, {});
      expect(result.status).toBe(0);
      return JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
        mr: number;
        typed: boolean;
      };
    };
    const base = ['evaluate', '--model', out, '--dataset', dataset, '--json'];
    // --typed ranks by the model alone: compared with the model alone untyped.
    const untyped = json([...base, '--no-rules']);
    const typed = json([...base, '--typed']);
    expect(typed.typed).toBe(true);
    expect(typed.mr).toBeLessThanOrEqual(untyped.mr);
    const labels = path.join(path.dirname(out), 'labels.tsv');
    fs.writeFileSync(labels, 'e1\tItem\ne2\tItem;ModelVersion\n');
    const bad = runCli([...base, '--typed', '--labels', labels], {});
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/labels\.tsv:2: label 2 "ModelVersion" is reserved/);
  });

  it("trains with --device gpu on a GPU adapter to the CPU engine's model, or says how to build it", () => {
    const args = ['train', '--dataset', dataset, '--epochs', '2', '--eval-every', '1', '--json'];
    const summaryOf = (stdout: string) =>
      JSON.parse(stdout.trim().split('\n').pop() as string) as { mrr: number; device: string };
    const cpu = runCli([...args, '--device', 'cpu', '--out', `${out}-cpu`], {});
    expect(cpu.status).toBe(0);
    expect(summaryOf(cpu.stdout).device).toMatch(/^cpu/);
    const gpu = runCli([...args, '--device', 'gpu', '--out', `${out}-gpu`], {});
    // scripts/test.sh builds the engine with its GPU backend (KGC_GPU=1) and a Vulkan driver
    // (Mesa's software lavapipe where there is no GPU); a build without it must say so.
    const built = nativeEngine().gpuBackend();
    if (process.env.KGC_GPU === '1') expect(built).toBe(true);
    if (built) {
      expect(gpu.status).toBe(0);
      const summary = summaryOf(gpu.stdout);
      expect(summary.device).not.toMatch(/^cpu/);
      expect(gpu.stdout).toMatch(/s\/epoch on .*(Vulkan|Metal|Dx12)/);
      // Same batches, masks and schedule: the same model up to float32 rounding.
      expect(Math.abs(summary.mrr - summaryOf(cpu.stdout).mrr)).toBeLessThan(1e-3);
      expect(fs.existsSync(path.join(`${out}-gpu`, 'model.safetensors'))).toBe(true);
    } else {
      expect(gpu.status).toBe(1);
      expect(gpu.stderr).toMatch(/^error \[DEVICE_UNAVAILABLE\]: .*KGC_GPU=1 npm run setup/);
    }
    const bad = runCli([...args, '--device', 'tpu'], {});
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--device must be one of auto, cpu, gpu, got "tpu"/);
  });

  it('trains with sampled candidates (--sampled-candidates), learning the graph, on the CPU and the GPU', () => {
    const args = ['train', '--dataset', dataset, '--epochs', '30', '--eval-every', '10'];
    const sampledOut = `${out}-sampled`;
    const result = runCli(
      [...args, '--sampled-candidates', '40', '--device', 'cpu', '--out', sampledOut, '--json'],
      {},
    );
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
      mrr: number;
      device: string;
    };
    expect(summary.device).toMatch(/^cpu/);
    // 80 entities in classes: a model that learnt nothing ranks the answer near the middle
    // (MRR about .06; scoring every entity reaches .45 here, and so does a sample of all).
    expect(summary.mrr).toBeGreaterThan(0.3);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(sampledOut, 'manifest.json'), 'utf8'),
    ) as { config: { sampled_candidates: number } };
    expect(manifest.config.sampled_candidates).toBe(40);
    if (nativeEngine().gpuBackend()) {
      // The same draws, batches and masks on the device: the same model up to float32 rounding
      // (3 epochs: the software device is slow).
      const short = ['train', '--dataset', dataset, '--epochs', '3', '--sampled-candidates', '40'];
      const summaryOn = (device: string) => {
        const run = runCli([...short, '--device', device, '--json'], {});
        expect(run.status).toBe(0);
        return JSON.parse(run.stdout.trim().split('\n').pop() as string) as typeof summary;
      };
      const [onCpu, onGpu] = [summaryOn('cpu'), summaryOn('gpu')];
      expect(onGpu.device).toMatch(/Vulkan|Metal|Dx12/);
      expect(Math.abs(onGpu.mrr - onCpu.mrr)).toBeLessThan(1e-3);
    }
    const bad = runCli([...args, '--sampled-candidates', '-1'], {});
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error \[BAD_USER_INPUT\]: --sampled-candidates must be/);
  });

  it('names the bad option or file in one line', () => {
    const badEpochs = runCli(['train', '--dataset', dataset, '--epochs', 'many'], {});
    expect(badEpochs.status).toBe(1);
    expect(badEpochs.stderr).toMatch(/^error \[BAD_USER_INPUT\]: --epochs must be an integer/);
    const badAverage = runCli(['train', '--dataset', dataset, '--weight-average', '1.5'], {});
    expect(badAverage.status).toBe(1);
    expect(badAverage.stderr).toMatch(
      /^error \[BAD_USER_INPUT\]: --weight-average must be a number from 0 to 1, got "1.5"/,
    );
    const badLoss = runCli(['train', '--dataset', dataset, '--loss', 'hinge'], {});
    expect(badLoss.status).toBe(1);
    expect(badLoss.stderr).toMatch(
      /^error \[BAD_USER_INPUT\]: --loss must be one of bce, softmax, got "hinge"/,
    );

    const missing = runCli(['evaluate', '--model', out, '--dataset', '/nonexistent/kgc'], {});
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error \[BAD_USER_INPUT\]: .*\/nonexistent\/kgc/);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});
