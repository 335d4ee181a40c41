// quickselect 2.x ships no types: the one function it exports (Floyd-Rivest selection).
declare module 'quickselect' {
  /**
   * Rearranges `items` between `left` and `right` (default: all of it) so that `items[k]` is
   * the element it would hold sorted by `compare` (default: ascending), those before it no
   * greater and those after it no less.
   */
  function quickselect<T>(
    items: { [index: number]: T; length: number },
    k: number,
    left?: number,
    right?: number,
    compare?: (a: T, b: T) => number,
  ): void;
  export = quickselect;
}
