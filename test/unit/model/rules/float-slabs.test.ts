import { Float32Slabs } from '../../../../src/model/rules/float-slabs';

describe('Float32Slabs: small kept arrays carved from a few large buffers', () => {
  it('copies values into views that do not overlap', () => {
    const slabs = new Float32Slabs();
    const a = slabs.copy([1, 2, 3]);
    const b = slabs.copy(Float32Array.of(4, 5));
    const empty = slabs.copy([]);
    expect(Array.from(a)).toEqual([1, 2, 3]);
    expect(Array.from(b)).toEqual([4, 5]);
    expect(empty).toHaveLength(0);
    b.sort().reverse();
    expect(Array.from(a)).toEqual([1, 2, 3]);
    expect(Array.from(b)).toEqual([5, 4]);
  });

  it('puts thousands of small copies in a handful of buffers', () => {
    const slabs = new Float32Slabs();
    const copies = Array.from({ length: 10_000 }, (_, i) => slabs.copy([i, i + 0.5, -i]));
    expect(new Set(copies.map((c) => c.buffer)).size).toBe(1);
    expect(copies.every((c, i) => c[0] === i && c[1] === i + 0.5 && c[2] === -i)).toBe(true);
  });

  it('starts a new buffer when one is full, and gives a longer array its own', () => {
    const slabs = new Float32Slabs();
    const first = slabs.copy(new Float32Array(1_000_000).fill(1));
    const second = slabs.copy(new Float32Array(100_000).fill(2));
    const long = slabs.copy(new Float32Array(2_000_000).fill(3));
    expect(second.buffer).not.toBe(first.buffer);
    expect(long.buffer).not.toBe(second.buffer);
    expect(long.buffer.byteLength).toBe(8_000_000);
    expect(first.every((v) => v === 1) && second.every((v) => v === 2)).toBe(true);
    expect(long.every((v) => v === 3)).toBe(true);
  });
});
