import { ServingTypes } from '../../../../src/model';
import type { TypesFile } from '../../../../src/model/types/types-file';

/** Entities 0, 1 are heads of r, 2 is its tail; entity 1 is a Person, label ranges for r's heads. */
const file: TypesFile = {
  format: 1,
  entities: 3,
  relations: ['r'],
  structure: { measure: 'jaccard', threshold: 0.2 },
  roles: [[2], [0, 1]],
  labels: ['Person', 'Place'],
  labelMembers: [[1], []],
  ranges: [
    { roles: [0], labels: [] },
    { roles: [1], labels: [0] },
  ],
};

describe('types of folded-in entities', () => {
  it('types a folded entity by the roles its edges give it where the range is structural', () => {
    const types = new ServingTypes(file).withFolded([
      { roles: [0], labels: [] }, // 3: a tail of r
      { roles: [1], labels: [] }, // 4: a head of r
    ]);
    expect(types.entityCount).toBe(5);
    expect(types.isConsistent(0, 'tail', 3)).toBe(true);
    expect(types.isConsistent(0, 'tail', 4)).toBe(false);
    expect([...types.outOfRange(0, 'tail')]).toEqual([0, 1, 4]);
  });

  it('judges a labelled folded entity by its labels, as the version judges its own', () => {
    const types = new ServingTypes(file).withFolded([
      { roles: [], labels: ['Person'] }, // 3
      { roles: [1], labels: ['Place'] }, // 4: a head by its edges, but labelled otherwise
      { roles: [1], labels: ['Unknown'] }, // 5: a label the version never saw: structural
    ]);
    expect(types.isConsistent(0, 'head', 3)).toBe(true);
    expect(types.isConsistent(0, 'head', 4)).toBe(false);
    expect(types.isConsistent(0, 'head', 5)).toBe(true);
  });

  it('leaves the version its own types: no folded entity, nothing changes', () => {
    const plain = new ServingTypes(file);
    expect(plain.entityCount).toBe(3);
    expect([...plain.outOfRange(0, 'head')]).toEqual([2]);
  });
});
