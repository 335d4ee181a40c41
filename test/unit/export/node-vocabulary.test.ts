import { NodeVocabulary } from '../../../src/export/node-vocabulary';

describe('NodeVocabulary', () => {
  it('gives sparse node ids (page edges, 2^34) provisional indexes in first-seen order', () => {
    const vocab = new NodeVocabulary();
    const nodes = [2 ** 34 + 5, 0, 65_535, 65_536, 7];
    expect(nodes.map((n) => vocab.indexOf(n))).toEqual([0, 1, 2, 3, 4]);
    expect(nodes.map((n) => vocab.indexOf(n))).toEqual([0, 1, 2, 3, 4]);
    expect(vocab.nodes).toEqual(nodes);
  });

  it('lists the unnamed, and sorts the named by id with the unnamed mapped to -1', () => {
    const vocab = new NodeVocabulary();
    expect(vocab.name(10, 'zeta')).toBe(0);
    vocab.indexOf(20);
    vocab.indexOf(30);
    expect(vocab.name(40, 'alpha')).toBe(3);
    expect(vocab.unnamedNodes()).toEqual([20, 30]);
    vocab.name(30, 'mu');
    expect(vocab.unnamedNodes()).toEqual([20]);
    const { names, remap } = vocab.sorted();
    expect(names).toEqual(['alpha', 'mu', 'zeta']);
    expect([...remap]).toEqual([2, -1, 1, 0]);
  });
});
