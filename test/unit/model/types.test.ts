import { ErrorCode } from '../../../src/errors';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  candidateMask,
  learnTypes,
  readTypesFile,
  ServingTypes,
  writeTypesFile,
  type TypesInput,
} from '../../../src/model';

/**
 * Entities 0-2 people, 3-4 countries, 5-6 cities. Relations: 0 citizenOf (person -> country),
 * 1 capital (country -> city), 2 bornIn (person -> city), 3 locatedIn (city -> country).
 */
function graph(): TypesInput {
  const edges = [
    [0, 0, 3],
    [1, 0, 4],
    [3, 1, 5],
    [4, 1, 6],
    [0, 2, 5],
    [2, 2, 6],
    [5, 3, 3],
    [6, 3, 4],
  ];
  return {
    entityCount: 8,
    relations: ['citizenOf', 'capital', 'bornIn', 'locatedIn'],
    heads: edges.map((e) => e[0] as number),
    relationIds: edges.map((e) => e[1] as number),
    tails: edges.map((e) => e[2] as number),
  };
}

function members(types: ServingTypes, relation: number, direction: 'tail' | 'head'): number[] {
  return [...Array(types.entityCount).keys()].filter((e) =>
    types.isConsistent(relation, direction, e),
  );
}

describe('learnTypes: structure', () => {
  it('puts the tails of relations whose tail sets overlap strongly into the range', () => {
    const types = new ServingTypes(
      learnTypes({ ...graph(), structure: { measure: 'jaccard', threshold: 0.5 } }),
    );
    // citizenOf's tails {3, 4} equal locatedIn's tails and capital's heads: all countries.
    expect(members(types, 0, 'tail')).toEqual([3, 4]);
    // bornIn's range: its own tails {5, 6}, the same set as capital's tails and locatedIn's heads.
    expect(members(types, 2, 'tail')).toEqual([5, 6]);
    // citizenOf's domain {0, 1} overlaps bornIn's heads {0, 2} by 1/3 < 0.5: only its own.
    expect(members(types, 0, 'head')).toEqual([0, 1]);
    expect([...types.outOfRange(0, 'tail')]).toEqual([0, 1, 2, 5, 6, 7]);
  });

  it('widens the domain when the threshold is lowered (the default, 0.2)', () => {
    const types = new ServingTypes(learnTypes(graph()));
    expect(members(types, 0, 'head')).toEqual([0, 1, 2]);
  });

  it('counts containment as the share of the other set inside this one', () => {
    const input = graph();
    // visited's tails {3, 7}: half inside citizenOf's {3, 4}; Jaccard 1/3.
    const more: TypesInput = {
      ...input,
      relations: [...input.relations, 'visited'],
      heads: [...Array.from(input.heads), 2, 2],
      relationIds: [...Array.from(input.relationIds), 4, 4],
      tails: [...Array.from(input.tails), 3, 7],
    };
    const contained = new ServingTypes(
      learnTypes({ ...more, structure: { measure: 'containment', threshold: 0.5 } }),
    );
    expect(members(contained, 0, 'tail')).toEqual([3, 4, 7]);
    const jaccard = new ServingTypes(
      learnTypes({ ...more, structure: { measure: 'jaccard', threshold: 0.5 } }),
    );
    expect(members(jaccard, 0, 'tail')).toEqual([3, 4]);
  });
});

describe('learnTypes: labels', () => {
  const labelled = (): TypesInput => ({
    ...graph(),
    labels: {
      names: ['Person', 'Country', 'City'],
      // Entity 7 is unlabelled and in no edge; entity 2 is unlabelled but a bornIn head.
      of: [[0], [0], undefined, [1], [1], [2], [2], undefined],
    },
  });

  it('puts every entity sharing a label with the observed tails in the range', () => {
    const input = labelled();
    // A country that is no one's citizenship yet: in range by its label.
    input.labels?.of.push([1]);
    const types = new ServingTypes(learnTypes({ ...input, entityCount: 9 }));
    expect(members(types, 0, 'tail')).toEqual([3, 4, 8]);
  });

  it('judges an unlabelled candidate by the structural rule', () => {
    const types = new ServingTypes(
      learnTypes({ ...labelled(), structure: { measure: 'jaccard', threshold: 0.3 } }),
    );
    // Domain of citizenOf: labelled Person {0, 1}, plus unlabelled 2 through bornIn's heads.
    expect(members(types, 0, 'head')).toEqual([0, 1, 2]);
    expect(types.isConsistent(0, 'head', 7)).toBe(false);
  });

  it('round-trips through types.json and builds the engine mask', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-types-'));
    writeTypesFile(dir, learnTypes(labelled()));
    const file = readTypesFile(dir);
    expect(file).toBeDefined();
    const types = new ServingTypes(file as NonNullable<typeof file>);
    expect(members(types, 1, 'tail')).toEqual([5, 6]);
    const mask = candidateMask(types, 4);
    // Relation 1, tail direction: row 2, one 32-bit word for 8 entities: bits 5 and 6.
    expect(mask[2]).toBe((1 << 5) | (1 << 6));
    expect(readTypesFile(path.join(dir, 'absent'))).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'types.json'), '{"format": 2}');
    expect(() => readTypesFile(dir)).toThrow(/not a types file/);
    fs.rmSync(dir, { recursive: true });
  });

  it.each([
    ['null', () => null, /not a types file/],
    [
      'a null relation',
      (t: Record<string, unknown>) => ({ ...t, relations: [null, 'x'] }),
      /relations are not/,
    ],
    [
      'no relations',
      (t: Record<string, unknown>) => ({ ...t, relations: undefined }),
      /relations are not/,
    ],
    [
      'a null range',
      (t: Record<string, unknown>) => ({ ...t, ranges: (t.ranges as unknown[]).map(() => null) }),
      /range 0/,
    ],
    [
      'a role past the relations',
      (t: Record<string, unknown>) => ({
        ...t,
        ranges: (t.ranges as unknown[]).map(() => ({ roles: [99], labels: [] })),
      }),
      /range 0 names roles/,
    ],
    [
      'an entity past the vocabulary',
      (t: Record<string, unknown>) => ({ ...t, roles: (t.roles as number[][]).map(() => [1e9]) }),
      /outside the version's 8/,
    ],
    [
      'a negative gap',
      (t: Record<string, unknown>) => ({
        ...t,
        labelMembers: (t.labelMembers as number[][]).map(() => [3, -1]),
      }),
      /labelMembers\[0\]/,
    ],
  ])('refuses %s with MODEL_INVALID (never a TypeError)', (_name, damage, message) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-types-'));
    const types = learnTypes(labelled()) as unknown as Record<string, unknown>;
    fs.writeFileSync(path.join(dir, 'types.json'), JSON.stringify(damage(types)));
    try {
      readTypesFile(dir);
      throw new Error('accepted');
    } catch (error) {
      expect((error as { code?: string }).code).toBe(ErrorCode.MODEL_INVALID);
      expect((error as Error).message).toMatch(message);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
