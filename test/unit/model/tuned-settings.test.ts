import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseTunedSettings, saveTunedSettings } from '../../../src/model';
import { TUNED_SETTINGS_FILE } from '../../../src/model/tuning/tuned-settings';

describe('stored tuned settings', () => {
  const graph = {
    entities: 1000,
    relations: 20,
    trainTriples: 20_000,
    queries: 25_000,
    effectiveRelations: 30,
  };
  const tuned = {
    settings: { relationDim: 30, lr: 0.001 },
    preset: 'default',
    tunedAt: '2026-11-23T00:00:00.000Z',
    version: 'v20261123T000000Z-abcdef',
    validMrr: 0.4,
    graph,
  };
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-tuned-'));
  });

  it('are reused for the same scope and preset on a graph of about the same size', () => {
    expect(chooseTunedSettings(root, 'main', 'default', graph)).toEqual({
      use: false,
      reason: 'no tuned settings stored',
    });
    saveTunedSettings(root, 'main', tuned);
    saveTunedSettings(root, 'other', { ...tuned, settings: { lr: 0.01 } });
    const grown = { ...graph, entities: 1900, trainTriples: 39_000 };
    expect(chooseTunedSettings(root, 'main', 'default', grown)).toEqual({ use: true, tuned });
    expect(chooseTunedSettings(root, 'other', 'default', graph)).toMatchObject({
      use: true,
      tuned: { settings: { lr: 0.01 } },
    });
  });

  it('are not reused for another preset, or once the graph has changed size by 2x', () => {
    saveTunedSettings(root, 'main', tuned);
    expect(chooseTunedSettings(root, 'main', 'fb15k-237', graph)).toMatchObject({
      use: false,
      reason: 'tuned for preset default, not fb15k-237',
    });
    const doubled = { ...graph, trainTriples: 40_001 };
    const choice = chooseTunedSettings(root, 'main', 'default', doubled);
    expect(choice.use).toBe(false);
    expect(!choice.use && choice.reason).toMatch(/changed size since tuning.*tune again/);
    const halved = { ...graph, entities: 499 };
    expect(chooseTunedSettings(root, 'main', 'default', halved).use).toBe(false);
  });

  it('an unreadable file only costs the reuse', () => {
    fs.writeFileSync(path.join(root, TUNED_SETTINGS_FILE), '{not json');
    expect(chooseTunedSettings(root, 'main', 'default', graph).use).toBe(false);
    saveTunedSettings(root, 'main', tuned);
    expect(chooseTunedSettings(root, 'main', 'default', graph).use).toBe(true);
  });
});
