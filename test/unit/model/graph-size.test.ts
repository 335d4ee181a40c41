import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/errors';
import { graphSize, resolveTrainingConfig } from '../../../src/model';

function datasetDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-size-'));
  fs.writeFileSync(path.join(dir, 'train.txt'), 'a\tlikes\tb\nb\tlikes\tc\nc\tknows\ta\n');
  fs.writeFileSync(path.join(dir, 'valid.txt'), 'a\tknows\td\n');
  fs.writeFileSync(path.join(dir, 'test.txt'), 'd\thates\te\n');
  return dir;
}

// The shared benchmarks as graphSize counts them.
const umls = {
  entities: 135,
  relations: 46,
  trainTriples: 5216,
  queries: 1560,
  effectiveRelations: 53.66,
};
const nations = {
  entities: 14,
  relations: 55,
  trainTriples: 1592,
  queries: 909,
  effectiveRelations: 96.07,
};
const fb15k237 = {
  entities: 14541,
  relations: 237,
  trainTriples: 272115,
  queries: 149689,
  effectiveRelations: 185.01,
};
const wn18rr = {
  entities: 40943,
  relations: 11,
  trainTriples: 86835,
  queries: 103509,
  effectiveRelations: 8.47,
};

describe('the default preset sized to the graph', () => {
  it('counts a dataset folder the way the engine builds its vocabularies', async () => {
    const size = await graphSize({ dir: datasetDir() });
    // Queries: (a, likes), (b, likes), (c, knows) and reversed (b, likes'), (c, likes'),
    // (a, knows'): 2, 2, 1 and 1 per relation id.
    const shares = [2 / 6, 2 / 6, 1 / 6, 1 / 6];
    const entropy = -shares.reduce((sum, p) => sum + p * Math.log(p), 0);
    expect(size).toEqual({
      entities: 5,
      relations: 3,
      trainTriples: 3,
      queries: 6,
      effectiveRelations: expect.closeTo(Math.exp(entropy), 12),
    });
    const arrays = {
      entities: ['a', 'b'],
      relations: ['r'],
      train: new Uint32Array([0, 0, 1, 1, 0, 0]),
      valid: new Uint32Array(),
      test: new Uint32Array(),
    };
    // (0, r), (1, r) each way: 4 queries, 2 per relation id.
    expect(await graphSize(arrays)).toEqual({
      entities: 2,
      relations: 1,
      trainTriples: 2,
      queries: 4,
      effectiveRelations: expect.closeTo(2, 12),
    });
    await expect(graphSize({ dir: '/nonexistent-kgc' })).rejects.toMatchObject({
      code: ErrorCode.FILE_NOT_FOUND,
    });
  });

  it('picks width, batch size and validation interval from the size; overrides win', () => {
    const small = resolveTrainingConfig('default', {}, umls);
    expect([
      small.relationDim,
      small.batchSize,
      small.evalEvery,
      small.activation,
      small.labelSmoothing,
    ]).toEqual([10, 32, 10, 'prelu', 0.1]);
    expect(small.inverseMode).toBe('new_relation');
    // Nations-like: 29 training triples per relation, too few to split between r and r_reverse.
    const sparse = resolveTrainingConfig('default', {}, nations);
    expect([sparse.relationDim, sparse.inverseMode]).toEqual([10, 'same_relation']);
    const large = fb15k237;
    const sized = resolveTrainingConfig('default', {}, large);
    expect([sized.relationDim, sized.batchSize, sized.evalEvery]).toEqual([100, 512, 1]);
    expect(resolveTrainingConfig('default', { batchSize: 64 }, large).batchSize).toBe(64);
    // FB15k-237's size is over the training budget (3.5 times the base one at its 272k
    // triples): 140 epochs, the lr scaled to the batch of 512 and annealed to a tenth, with
    // dropout.
    expect(sized.epochs).toBe(140);
    expect([sized.lr, sized.dropoutIn]).toEqual([0.006, 0.3]);
    expect(Math.pow(sized.decay as number, 140)).toBeCloseTo(0.1, 10);
    // WN18RR's (44 epochs, about 190 training queries per entity) is the fast schedule: a 4x lr,
    // no dropout.
    const wn = resolveTrainingConfig('default', {}, wn18rr);
    expect(wn.epochs).toBe(44);
    expect([wn.lr, wn.dropoutIn, wn.dropoutH1, wn.dropoutH2]).toEqual([0.012, 0, 0, 0]);
    expect(small.epochs).toBe(500);
    // The reference presets are the papers' settings whatever the graph.
    expect(resolveTrainingConfig('fb15k-237', {}, large)).toEqual(
      resolveTrainingConfig('fb15k-237'),
    );
  });

  it('sizes around the overrides: what depends on them follows, bad values name the setting', () => {
    const large = fb15k237;
    const longer = resolveTrainingConfig('default', { epochs: 100 }, large);
    expect(longer.epochs).toBe(100);
    expect(Math.pow(longer.decay as number, 100)).toBeCloseTo(0.1, 10);
    expect(resolveTrainingConfig('default', { epochs: 100, decay: 1 }, large).decay).toBe(1);
    // Under the budget the lr follows an overridden batch size (sqrt scaling above 128 only).
    const medium = { ...wn18rr, entities: 1000, queries: 86835, effectiveRelations: 22 };
    expect(resolveTrainingConfig('default', {}, medium).lr).toBeCloseTo(0.003 * Math.SQRT2, 12);
    expect(resolveTrainingConfig('default', { batchSize: 128 }, medium).lr).toBe(0.003);
    // A 5,000-entity sample of FB15k-237 has a budget of 270 epochs: annealed, with dropout.
    const e5k = resolveTrainingConfig(
      'default',
      {},
      {
        entities: 5000,
        relations: 221,
        trainTriples: 114812,
        queries: 60740,
        effectiveRelations: 145.52,
      },
    );
    expect([e5k.epochs, e5k.dropoutIn]).toEqual([270, 0.3]);
    // An overridden dropout is kept on a graph with the fast schedule (WN18RR); the rest stay off.
    const wn = wn18rr;
    const dropout = resolveTrainingConfig('default', { dropoutH2: 0.5 }, wn);
    expect([dropout.dropoutIn, dropout.dropoutH2]).toEqual([0, 0.5]);
    expect(() =>
      resolveTrainingConfig('default', { batchSize: 'big' as unknown as number }, large),
    ).toThrow(
      expect.objectContaining({
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(/batchSize/),
      }),
    );
    expect(() => resolveTrainingConfig('default', { huge: 1 } as never, large)).toThrow(
      /Unknown training setting "huge"/,
    );
  });
});
