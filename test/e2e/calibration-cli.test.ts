import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calibrateDatasetModel, readCalibrationFile } from '../../src/model';
import { EDGE_FEATURES } from '../../src/model/calibration/edge-calibration';
import { runCli } from '../support/cli';
import { classGraph, splitTriples, writeDatasetDir } from '../support/generated-graph';
import type { Triple } from '../support/generated-graph';

jest.setTimeout(120_000);

/** Known-false triples: each held-out `is_a` edge with a wrong class. */
function wrongClasses(triples: Triple[]): Triple[] {
  return triples
    .filter(([, r]) => r === 'is_a')
    .map(([h, r, t]) => [h, r, `class${(Number(t.slice(5)) + 1) % 4}`]);
}

const lines = (triples: Triple[]) => triples.map((t) => t.join('\t')).join('\n') + '\n';

describe('kgc train --dataset calibrates; kgc evaluate --classify', () => {
  const triples = classGraph(80);
  const dataset = writeDatasetDir(triples, 5);
  const split = splitTriples(triples, 5);
  // One line names an entity the model never saw: counted and skipped.
  fs.writeFileSync(
    path.join(dataset, 'valid_negatives.txt'),
    lines([...wrongClasses(split.valid), ['nobody', 'is_a', 'class0']]),
  );
  fs.writeFileSync(path.join(dataset, 'test_negatives.txt'), lines(wrongClasses(split.test)));
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-calibration-cli-')), 'model');

  it('writes calibration.json and reliability.svg, fitted on valid and valid_negatives', () => {
    const result = runCli(
      [
        'train',
        '--dataset',
        dataset,
        '--epochs',
        '30',
        '--threads',
        '1',
        '--seed',
        '2',
        '--out',
        out,
        '--json',
      ],
      {},
    );
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/skipped 1 line\(s\) of valid_negatives\.txt/);
    expect(result.stdout).toMatch(/Calibrated on valid\.txt and valid_negatives\.txt/);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
      calibration: {
        fitMix: { rejected: number; positives: number };
        measureMix: { rejected: number };
      };
    };
    // Each known negative is scored in both directions.
    expect(summary.calibration.fitMix.rejected).toBe(2 * wrongClasses(split.valid).length);
    expect(summary.calibration.measureMix.rejected).toBe(2 * wrongClasses(split.test).length);
    expect(summary.calibration.fitMix.positives).toBe(2 * split.valid.length);
    expect(fs.existsSync(path.join(out, 'calibration.json'))).toBe(true);
    expect(fs.readFileSync(path.join(out, 'reliability.svg'), 'utf8')).toMatch(/^<svg/);
  });

  it('classifies test.txt against test_negatives.txt at probability 0.5', () => {
    fs.appendFileSync(path.join(dataset, 'test_negatives.txt'), 'e1\tis_a\tstranger\n');
    const result = runCli(
      ['evaluate', '--model', out, '--dataset', dataset, '--classify', '--json'],
      {},
    );
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout.trim().split('\n').pop() as string) as Record<
      string,
      unknown
    >;
    expect(report.calibrated).toBe(true);
    expect(report.positives).toBe(split.test.length);
    expect(report.negatives).toBe(wrongClasses(split.test).length + 1);
    expect(report.unknown).toEqual({ positives: 0, negatives: 1 });
    for (const key of ['accuracy', 'precision', 'recall', 'f1', 'ece']) {
      expect(report[key]).toBeGreaterThanOrEqual(0);
      expect(report[key]).toBeLessThanOrEqual(1);
    }
    // The class structure is learnable: far better than the 0.5 of a coin.
    expect(report.accuracy as number).toBeGreaterThan(0.6);
    expect(result.stdout).toMatch(
      /1 false triple\(s\) name an entity or relation the model does not know/,
    );
  });

  it('calibrates into a folder that does not exist yet, the edge calibrator hearing the rules', async () => {
    const elsewhere = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-recalibrate-')),
      'a',
      'b',
    );
    const before = fs.readFileSync(path.join(out, 'calibration.json'), 'utf8');
    const result = await calibrateDatasetModel(out, dataset, { outDir: elsewhere });
    expect(result.summary).not.toBeNull();
    const file = readCalibrationFile(elsewhere);
    expect(file?.edge?.table.features).toEqual([...EDGE_FEATURES]);
    expect(file?.edge?.table.global.coefficients).toHaveLength(EDGE_FEATURES.length + 1);
    // `kgc train --dataset` mined rules into the folder: the edge calibrator heard them.
    expect(fs.existsSync(path.join(out, 'rules.json'))).toBe(true);
    // The model's own calibration is left as it was.
    expect(fs.readFileSync(path.join(out, 'calibration.json'), 'utf8')).toBe(before);
  });

  it('names the missing file when the folder has no test_negatives.txt', () => {
    const bare = writeDatasetDir(triples, 5);
    const result = runCli(['evaluate', '--model', out, '--dataset', bare, '--classify'], {});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/--classify needs test_negatives\.txt/);
  });
});
