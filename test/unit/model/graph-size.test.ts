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

describe('the default preset sized to the graph', () => {
  it('counts a dataset folder the way the engine builds its vocabularies', async () => {
    expect(await graphSize({ dir: datasetDir() })).toEqual({
      entities: 5,
      relations: 3,
      trainTriples: 3,
    });
    const arrays = {
      entities: ['a', 'b'],
      relations: ['r'],
      train: new Uint32Array([0, 0, 1, 1, 0, 0]),
      valid: new Uint32Array(),
      test: new Uint32Array(),
    };
    expect(await graphSize(arrays)).toEqual({ entities: 2, relations: 1, trainTriples: 2 });
    await expect(graphSize({ dir: '/nonexistent-kgc' })).rejects.toMatchObject({
      code: ErrorCode.FILE_NOT_FOUND,
    });
  });

  it('picks width, batch size and validation interval from the size; overrides win', () => {
    const small = resolveTrainingConfig(
      'default',
      {},
      { entities: 135, relations: 46, trainTriples: 5216 },
    );
    expect([
      small.d_r,
      small.batch_size,
      small.eval_every,
      small.activation,
      small.label_smoothing,
    ]).toEqual([10, 32, 10, 'prelu', 0.05]);
    expect(small.inverse_mode).toBe('new_relation');
    // Nations-like: 29 training triples per relation, too few to split between r and r_reverse.
    const sparse = resolveTrainingConfig(
      'default',
      {},
      { entities: 14, relations: 55, trainTriples: 1592 },
    );
    expect([sparse.d_r, sparse.inverse_mode]).toEqual([10, 'same_relation']);
    const large = { entities: 14541, relations: 237, trainTriples: 272115 };
    const sized = resolveTrainingConfig('default', {}, large);
    expect([sized.d_r, sized.batch_size, sized.eval_every, sized.lr]).toEqual([100, 512, 1, 0.006]);
    expect(resolveTrainingConfig('default', { batchSize: 64 }, large).batch_size).toBe(64);
    // The reference presets are the papers' settings whatever the graph.
    expect(resolveTrainingConfig('fb15k-237', {}, large)).toEqual(
      resolveTrainingConfig('fb15k-237'),
    );
  });
});
