import {
  describeWarmStart,
  resolveTrainingConfig,
  warmStartIncompatibility,
  warmStartSchedule,
} from '../../../src/model';
import type { EngineConfig, GraphChange } from '../../../src/model';

const full: EngineConfig = {
  ...resolveTrainingConfig('default'),
  epochs: 40,
  lr: 0.004,
  decay: 0.95,
  evalEvery: 1,
  patience: 5,
};

function change(addedEdges: number, newEntities = 0, triples = 10_000): GraphChange {
  return { addedEdges, removedEdges: 0, triples, newEntities, newRelations: 0, entities: 1000 };
}

describe('the warm-start schedule', () => {
  it('trains a share of the from-scratch epochs sized to the change, at a fine-tuning lr', () => {
    const five = warmStartSchedule(full, change(500));
    expect(five?.schedule.changeShare).toBeCloseTo(0.05);
    expect(five?.config.epochs).toBe(6); // 15% of 40, rounded up
    expect(five?.config.lr).toBeCloseTo(0.002);
    // Annealed to the same final fraction over the shorter run.
    expect(Math.pow(five!.config.decay, 6)).toBeCloseTo(Math.pow(0.95, 40));
    expect(five?.config.patience).toBe(5);
    expect(five?.config.evalEvery).toBe(1);
    // Tiny changes still train the minimum share; more change, more epochs.
    expect(warmStartSchedule(full, change(1))?.config.epochs).toBe(4);
    expect(warmStartSchedule(full, change(2000))?.config.epochs).toBe(24);
  });

  it('counts new entities as change too, and gives up past the largest change share', () => {
    expect(warmStartSchedule(full, change(0, 100))?.schedule.changeShare).toBeCloseTo(0.1);
    expect(warmStartSchedule(full, change(3000))).toBeNull();
    expect(warmStartSchedule(full, change(0, 300))).toBeNull();
  });

  it('validates often enough for early stopping on a short run, never where it never did', () => {
    const rare = { ...full, epochs: 400, evalEvery: 10 };
    expect(warmStartSchedule(rare, change(500))?.config.evalEvery).toBe(10);
    expect(warmStartSchedule({ ...full, evalEvery: 10 }, change(500))?.config.evalEvery).toBe(1);
    expect(warmStartSchedule({ ...full, evalEvery: 0 }, change(500))?.config.evalEvery).toBe(0);
    expect(warmStartSchedule({ ...full, decay: 1 }, change(500))?.config.decay).toBe(1);
  });

  it('refuses settings whose weights do not carry over, naming them', () => {
    expect(warmStartIncompatibility(full, { ...full, lr: 1, dropoutIn: 0 })).toBeNull();
    expect(warmStartIncompatibility(full, { ...full, entityDim: full.entityDim + 8 })).toMatch(
      /entityDim/,
    );
    expect(warmStartIncompatibility(full, { ...full, loss: 'softmax' })).toMatch(/loss bce/);
    expect(warmStartIncompatibility({ ...full, loss: undefined }, { ...full, loss: 'bce' })).toBe(
      null,
    );
    const mode = full.inverseMode === 'new_relation' ? 'same_relation' : 'new_relation';
    expect(warmStartIncompatibility(full, { ...full, inverseMode: mode })).toMatch(/inverseMode/);
  });

  it('says where it started and how long it trains', () => {
    const warm = warmStartSchedule(full, { ...change(500, 12), newRelations: 1 })!;
    expect(describeWarmStart('v3', { ...change(500, 12), newRelations: 1 }, warm.schedule)).toMatch(
      /^warm start from v3 \(5\.0% new edges, 12 new entities, 1 new relations\): 6 epochs/,
    );
  });
});
