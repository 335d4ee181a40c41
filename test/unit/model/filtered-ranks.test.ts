import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/errors';
import { resolveTrainingConfig, Scorer, train } from '../../../src/model';
import { nativeEngine } from '../../../src/model/native-engine';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

const SMALL = {
  entityDim: 16,
  relationDim: 4,
  activation: 'leaky_relu' as const,
  lr: 0.01,
  epochs: 8,
  evalEvery: 8,
  threads: 2,
  seed: 3,
};

/** The rank of `tail` from scoreTriples over every entity, ties counting half. */
function bruteForce(
  model: ReturnType<ReturnType<typeof nativeEngine>['NeptuneModel']['load']>,
  [head, relation, tail]: [number, number, number],
  exclude: number[],
): number {
  const n = model.entities.length;
  const all = Uint32Array.from({ length: n }, (_, e) => e);
  const scores = model.scoreTriples(
    new Uint32Array(n).fill(head),
    new Uint32Array(n).fill(relation),
    all,
  );
  const s = scores[tail] as number;
  let rank = 1;
  for (let e = 0; e < n; e++) {
    if (e === tail || exclude.includes(e)) continue;
    const v = scores[e] as number;
    if (v > s) rank += 1;
    else if (v === s) rank += 0.5;
  }
  return rank;
}

describe('filteredRanks through the binding and the Scorer', () => {
  let modelDir: string;

  beforeAll(async () => {
    modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-ranks-'));
    await train({ dir: writeDatasetDir(classGraph(40)) }, resolveTrainingConfig('default', SMALL), {
      outDir: modelDir,
    });
  });

  afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

  it('ranks every tail as a brute force over scoreTriples does, with and without exclusions', async () => {
    const model = nativeEngine().NeptuneModel.load(modelDir);
    const n = model.entities.length;
    const triples: [number, number, number][] = Array.from({ length: 30 }, (_, i) => [
      (i * 7) % n,
      i % model.relations.length,
      (i * 11 + 3) % n,
    ]);
    // The tail itself and duplicates in the list: the tail stays, each entity is removed once.
    const excludes = triples.map(([, , t], i) => [
      ...Array.from({ length: n }, (_, e) => e).filter((e) => (e + i) % 3 === 0),
      t,
      t,
    ]);
    const column = (k: 0 | 1 | 2) => Uint32Array.from(triples, (q) => q[k]);
    const lists = excludes.map((e) => Uint32Array.from(e));
    const sync = model.filteredRanks(column(0), column(1), column(2), lists).ranks;
    const async = await model.filteredRanksAsync(column(0), column(1), column(2), lists);
    const plain = (await model.filteredRanksAsync(column(0), column(1), column(2))).ranks;
    // The logits ranked by are scoreTriples' logits.
    expect(async.logits).toEqual(model.scoreTriples(column(0), column(1), column(2)));
    triples.forEach((q, i) => {
      expect(sync[i]).toBe(bruteForce(model, q, excludes[i]!));
      expect(async.ranks[i]).toBe(sync[i]);
      expect(plain[i]).toBe(bruteForce(model, q, []));
    });
    expect(Array.from(sync).some((r, i) => r < (plain[i] as number))).toBe(true);

    // The Scorer asks through the reverse relation for heads.
    const scorer = Scorer.load(modelDir);
    const [e3, isA, class3] = [
      scorer.entity('e3'),
      scorer.relation('is_a'),
      scorer.entity('class3'),
    ];
    const { ranks } = await scorer.filteredRanksAsync([
      { entity: e3, relation: isA, tail: class3 },
      { entity: class3, relation: isA, direction: 'head', tail: e3 },
    ]);
    const [tailRank, headRank] = ranks;
    expect(tailRank).toBe(bruteForce(model, [e3, isA, class3], []));
    expect(headRank).toBe(bruteForce(model, [class3, model.reverseRelation(isA), e3], []));
  });

  it('logitsAsync scores queries against every entity, as scoreTriples and logitsAgainstAsync do', async () => {
    const model = nativeEngine().NeptuneModel.load(modelDir);
    const n = model.entities.length;
    const heads = Uint32Array.of(0, 5, n - 1);
    const relations = Uint32Array.of(0, model.reverseRelation(0), 1);
    const logits = await model.logitsAsync(heads, relations);
    expect(logits).toHaveLength(3 * n);
    const every = Uint32Array.from({ length: n }, (_, e) => e);
    const against = await model.logitsAgainstAsync(heads, relations, model.entityVectors(every));
    heads.forEach((h, i) => {
      const row = Array.from(logits.subarray(i * n, (i + 1) * n));
      const triples = model.scoreTriples(
        new Uint32Array(n).fill(h),
        new Uint32Array(n).fill(relations[i] as number),
        every,
      );
      row.forEach((v, e) => {
        expect(v).toBeCloseTo(triples[e] as number, 4);
        expect(v).toBeCloseTo(against[i * n + e] as number, 4);
      });
    });
    await expect(model.logitsAsync(Uint32Array.of(n), Uint32Array.of(0))).rejects.toMatchObject({
      code: 'ENGINE_ARGUMENT',
      message: expect.stringMatching(/`entity`: .* out of range/),
    });
    // Arguments that do not pair up are refused before the task starts.
    expect(() => model.logitsAsync(Uint32Array.of(0, 1), Uint32Array.of(0))).toThrow(
      expect.objectContaining({
        code: 'ENGINE_ARGUMENT',
        message: expect.stringMatching(/differ in length/),
      }),
    );
  });

  it('refuses bad arguments with ENGINE_ARGUMENT naming the argument, synchronously and async', async () => {
    const model = nativeEngine().NeptuneModel.load(modelDir);
    const n = model.entities.length;
    const one = Uint32Array.of(0);
    const cases: [Uint32Array, Uint32Array, Uint32Array, Uint32Array[] | undefined, RegExp][] = [
      [one, one, Uint32Array.of(0, 1), undefined, /tails \(2\) differ in length/],
      [one, one, one, [one, one], /excludes holds 2 lists for 1 triples/],
      [one, one, Uint32Array.of(n), undefined, /`tails`: .* out of range/],
      [one, one, one, [Uint32Array.of(n)], /`excludes`: excludes\[0\] holds/],
      [Uint32Array.of(n), one, one, undefined, /`entity`: .* out of range/],
      [one, Uint32Array.of(99), one, undefined, /`relation`: .* out of range/],
    ];
    for (const [h, r, t, ex, message] of cases) {
      expect(() => model.filteredRanks(h, r, t, ex)).toThrow(
        expect.objectContaining({
          code: 'ENGINE_ARGUMENT',
          message: expect.stringMatching(message),
        }),
      );
      const failure = await Promise.resolve()
        .then(() => model.filteredRanksAsync(h, r, t, ex))
        .catch((e: unknown) => e);
      expect(failure).toMatchObject({
        code: 'ENGINE_ARGUMENT',
        message: expect.stringMatching(message),
      });
    }
    await expect(
      Scorer.load(modelDir).filteredRanksAsync([{ entity: 0, relation: 0, tail: n }]),
    ).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
  });
});
