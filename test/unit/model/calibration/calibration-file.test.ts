import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../../src/errors';
import {
  CALIBRATION_FILE,
  readCalibrationFile,
  servedProbability,
  writeCalibrationFile,
  servingCalibration,
  sigmoid,
} from '../../../../src/model/calibration';
import type { CalibrationFile, CalibrationTable } from '../../../../src/model/calibration';
import { EDGE_FEATURES } from '../../../../src/model/calibration/edge-calibration';

const table: CalibrationTable = {
  global: { kind: 'platt', a: 0.5, b: -1 },
  shrinkagePrior: 25,
  relations: [
    {
      relation: 'likes',
      direction: 'head',
      own: { kind: 'isotonic', x: [-1, 1], y: [0.1, 0.9] },
      weight: 0.5,
      positives: 25,
      negatives: 25,
      heldOutLogLoss: { platt: 0.5, isotonic: 0.4 },
    },
  ],
};

function dirWith(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-calibration-file-'));
  fs.writeFileSync(
    path.join(dir, CALIBRATION_FILE),
    typeof content === 'string' ? content : JSON.stringify(content),
  );
  return dir;
}

describe('calibration.json', () => {
  it('is optional: a directory without it reads as null (the sigmoid serves)', () => {
    expect(readCalibrationFile(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-none-')))).toBeNull();
  });

  it('serves each (relation, direction) by the model ids, the global one elsewhere', () => {
    const file = readCalibrationFile(dirWith({ format: 1, table }));
    const serving = servingCalibration(file!.table, ['knows', 'likes']);
    expect(servedProbability(serving, 1, 'head', 0)).toBeCloseTo(0.5 * 0.5 + 0.5 * sigmoid(-1), 12);
    expect(servedProbability(serving, 1, 'tail', 0)).toBeCloseTo(sigmoid(-1), 12);
    expect(servedProbability(serving, 0, 'head', 2)).toBeCloseTo(sigmoid(0), 12);
  });

  it('reads edge calibrators over the rules, and those written before the rules were features', () => {
    const rules = readCalibrationFile(
      dirWith({
        table,
        edge: {
          table: {
            features: EDGE_FEATURES,
            global: { coefficients: [0, 1, 1, 0, 0, 2, 1] },
            relations: [{ relation: 'likes', coefficients: [0, 1, 0, 0, 0, 3, 0], weight: 0.5 }],
          },
        },
      }),
    );
    expect(rules?.edge?.table.global.coefficients).toHaveLength(7);
    const before = readCalibrationFile(
      dirWith({
        table,
        edge: {
          table: {
            features: ['tailLogit', 'headLogit', 'tailCount', 'headCount'],
            global: { coefficients: [0, 1, 1, 0, 0] },
            relations: [],
          },
        },
      }),
    );
    expect(before?.edge?.table.features).toHaveLength(4);
  });

  it('is never written unusable: the writer refuses what the server would, and writes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-calibration-write-'));
    const usable = { format: 1, table } as unknown as CalibrationFile;
    writeCalibrationFile(dir, usable);
    expect(readCalibrationFile(dir)?.table).toEqual(table);
    fs.rmSync(path.join(dir, CALIBRATION_FILE));
    // An edge regression that ran away (a full Newton step on saturated sigmoids).
    const diverged = {
      ...usable,
      edge: {
        table: {
          features: EDGE_FEATURES,
          global: { coefficients: [1.4e10, 5e4, 6e3, -7e3, -5e3, 8e3, 5e3] },
          relations: [],
        },
        tailOnly: null,
        after: null,
      },
    } as CalibrationFile;
    expect(() => writeCalibrationFile(dir, diverged)).toThrow(
      /unusable \(edge coefficients must be 7 numbers of magnitude at most 1000000\); nothing was written/,
    );
    expect(fs.existsSync(path.join(dir, CALIBRATION_FILE))).toBe(false);
  });

  it('refuses a file over its size cap before reading it', () => {
    const dir = dirWith('');
    // A sparse file: 40 MiB long, nothing written.
    fs.truncateSync(path.join(dir, CALIBRATION_FILE), 40 * 2 ** 20);
    expect(() => readCalibrationFile(dir)).toThrow(/over the 33554432 a version's file may have/);
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['no calibrators', { format: 1 }, /lacks the calibrators/],
    [
      'a decreasing Platt slope',
      { table: { ...table, global: { kind: 'platt', a: -1, b: 0 } } },
      /0 < a/,
    ],
    [
      'a decreasing isotonic',
      {
        table: {
          ...table,
          relations: [
            { ...table.relations[0], own: { kind: 'isotonic', x: [0, 1], y: [0.9, 0.1] } },
          ],
        },
      },
      /non-decreasing/,
    ],
    [
      'a weight out of range',
      { table: { ...table, relations: [{ ...table.relations[0], weight: 2 }] } },
      /weight of likes \[head\]/,
    ],
    [
      'an edge calibrator with too few coefficients',
      {
        table,
        edge: {
          table: {
            features: ['tailLogit', 'headLogit', 'tailCount', 'headCount'],
            global: { coefficients: [0, 1, 1, 0, 0] },
            relations: [{ relation: 'likes', coefficients: [0, 1], weight: 0.5 }],
          },
        },
      },
      /edge coefficients must be 5 numbers of magnitude at most/,
    ],
    [
      'edge calibrators over other features',
      {
        table,
        edge: {
          table: {
            features: ['tailLogit'],
            global: { coefficients: [0, 1, 1, 0, 0] },
            relations: [],
          },
        },
      },
      /edge features are not/,
    ],
    [
      'edge calibrators over the rules with the coefficients of the features before them',
      {
        table,
        edge: {
          table: {
            features: EDGE_FEATURES,
            global: { coefficients: [0, 1, 1, 0, 0] },
            relations: [],
          },
        },
      },
      /edge coefficients must be 7 numbers/,
    ],
    ['edge calibrators without a table', { table, edge: {} }, /lacks the edge calibrators/],
    // Found in review: a null where a calibrator belongs was a TypeError, not MODEL_INVALID.
    ['a null relation calibrator', { table: { ...table, relations: [null] } }, /not an object/],
    ['a null table', { table: null }, /lacks the calibrators/],
    ['null', null, /lacks the calibrators/],
    [
      'a null edge calibrator',
      {
        table,
        edge: {
          table: {
            features: ['tailLogit', 'headLogit', 'tailCount', 'headCount'],
            global: { coefficients: [0, 1, 1, 0, 0] },
            relations: [null],
          },
        },
      },
      /lacks its relation/,
    ],
    // Finite but huge: a·logit + b would overflow to Inf and Inf - Inf to NaN.
    [
      'a Platt slope too large',
      { table: { ...table, global: { kind: 'platt', a: 1e300, b: -1e300 } } },
      /0 < a <= 1000000/,
    ],
  ])('refuses %s with MODEL_INVALID naming the file', (_name, content, message) => {
    try {
      readCalibrationFile(dirWith(content));
      throw new Error('accepted');
    } catch (error) {
      expect((error as { code?: string }).code).toBe(ErrorCode.MODEL_INVALID);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toMatch(/calibration\.json/);
    }
  });
});
