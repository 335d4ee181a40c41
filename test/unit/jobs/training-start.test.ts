import { graphChange, planTrainingStart } from '../../../src/jobs/training-start';
import { resolveTrainingConfig } from '../../../src/model';

const data = {
  entities: ['a', 'b', 'c', 'new'],
  relations: ['likes', 'fresh'],
  train: new Uint32Array(),
  valid: new Uint32Array(),
  test: new Uint32Array(),
};

describe("a training run's start", () => {
  it("counts the edges, entities and relations the version's snapshot lacks", () => {
    const old = {
      entities: ['a', 'b', 'c', 'gone'],
      relations: ['likes'],
      snapshot: Float64Array.from([1, 2, 3, 4]),
    };
    expect(graphChange(old, data, Float64Array.from([2, 3, 4, 5, 6, 7]))).toEqual({
      addedEdges: 3,
      removedEdges: 1,
      triples: 6,
      newEntities: 1,
      newRelations: 1,
      entities: 4,
    });
  });

  it('starts fresh when asked, when nothing is active, or when the version is unreadable', () => {
    const lines: string[] = [];
    const input = {
      active: null,
      forceFromScratch: false,
      data,
      snapshot: new Float64Array(),
      config: resolveTrainingConfig('default'),
      log: (line: string) => lines.push(line),
    };
    expect(planTrainingStart(input).fromScratch).toMatch(/no active version/);
    expect(planTrainingStart({ ...input, forceFromScratch: true }).fromScratch).toMatch(
      /asked for/,
    );
    const gone = planTrainingStart({ ...input, active: { version: 'v1', dir: '/nowhere/v1' } });
    expect(gone.warmStartFrom).toBeUndefined();
    expect(gone.fromScratch).toMatch(/v1 is unreadable/);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^training from scratch: /);
  });
});
