import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { retrainDecision, changeSinceActive } from '../../../src/jobs/retrain-trigger';
import { SNAPSHOT_KEYS_FILE, TRAINED_KEYS_FILE, writeKeys } from '../../../src/model';

const since = 'v7';

describe('retrainDecision: a scheduled run trains on changed edges or on new entities', () => {
  it('trains on every run when both thresholds are off (as before the entity threshold)', () => {
    const decision = retrainDecision({ changedEdges: 0, newEntities: 0 }, off(), since);
    expect(decision.train).toBe(true);
    expect(decision.reason).toBe(
      'training: 0 edges changed, 0 new entities since v7 (no change threshold set)',
    );
  });

  it('skips below the edge threshold and says so, naming the counts and the threshold', () => {
    const decision = retrainDecision(
      { changedEdges: 9, newEntities: 4 },
      { minChangedEdges: 10, minNewEntities: 0 },
      since,
    );
    expect(decision).toEqual({
      train: false,
      reason: 'skipped: 9 edges changed, 4 new entities since v7; below 10 changed edge(s)',
    });
  });

  it('trains at the edge threshold exactly', () => {
    const decision = retrainDecision(
      { changedEdges: 10, newEntities: 0 },
      { minChangedEdges: 10, minNewEntities: 0 },
      since,
    );
    expect(decision.train).toBe(true);
    expect(decision.reason).toMatch(/reached 10 changed edge\(s\)$/);
  });

  it('trains on new entities alone when the edges stay below their threshold', () => {
    const decision = retrainDecision(
      { changedEdges: 3, newEntities: 1 },
      { minChangedEdges: 100, minNewEntities: 1 },
      since,
    );
    expect(decision).toEqual({
      train: true,
      reason: 'training: 3 edges changed, 1 new entity since v7; reached 1 new entity',
    });
  });

  it('skips when neither threshold is reached, naming both', () => {
    const decision = retrainDecision(
      { changedEdges: 1, newEntities: 2 },
      { minChangedEdges: 100, minNewEntities: 5 },
      since,
    );
    expect(decision.train).toBe(false);
    expect(decision.reason).toBe(
      'skipped: 1 edge changed, 2 new entities since v7; below 100 changed edge(s) and 5 new entities',
    );
  });

  it('names both thresholds when both are reached', () => {
    const decision = retrainDecision(
      { changedEdges: 200, newEntities: 50 },
      { minChangedEdges: 100, minNewEntities: 5 },
      since,
    );
    expect(decision.reason).toMatch(/reached 100 changed edge\(s\) and 5 new entities$/);
  });

  it('with only the entity threshold on, edges alone never trigger', () => {
    const decision = retrainDecision(
      { changedEdges: 10_000, newEntities: 0 },
      { minChangedEdges: 0, minNewEntities: 1 },
      since,
    );
    expect(decision.train).toBe(false);
  });

  it('an unreadable record (Infinity) trains', () => {
    const decision = retrainDecision(
      { changedEdges: Infinity, newEntities: Infinity },
      { minChangedEdges: 100, minNewEntities: 5 },
      since,
    );
    expect(decision.train).toBe(true);
  });
});

describe('changeSinceActive: counted against the active version directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-trigger-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function writeVersion(entities: string[], snapshot: number[]) {
    fs.writeFileSync(
      path.join(dir, 'manifest.json'),
      JSON.stringify({ entities, relations: ['r'] }),
    );
    fs.writeFileSync(path.join(dir, 'model.safetensors'), '');
    fs.writeFileSync(
      path.join(dir, 'version.json'),
      JSON.stringify({ version: since, snapshot: {} }),
    );
    writeKeys(path.join(dir, SNAPSHOT_KEYS_FILE), Float64Array.from(snapshot));
    writeKeys(path.join(dir, TRAINED_KEYS_FILE), Float64Array.from(snapshot));
  }

  it('counts edges added plus removed, and the entities the vocabulary lacks', () => {
    writeVersion(['a', 'b', 'c'], [1, 2, 3]);
    const change = changeSinceActive({ version: since, dir }, Float64Array.from([2, 3, 4, 5]), [
      'a',
      'b',
      'd',
      'e',
    ]);
    // Edge 1 removed, 4 and 5 added; d and e are new (c, gone from the graph, is not "new").
    expect(change).toEqual({ changedEdges: 3, newEntities: 2 });
  });

  it('an unreadable version directory counts as everything changed', () => {
    const change = changeSinceActive(
      { version: since, dir: path.join(dir, 'gone') },
      Float64Array.from([1]),
      ['a'],
    );
    expect(change).toEqual({ changedEdges: Infinity, newEntities: Infinity });
  });
});

function off() {
  return { minChangedEdges: 0, minNewEntities: 0 };
}
