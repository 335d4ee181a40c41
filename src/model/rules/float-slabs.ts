/** Floats a slab holds (4 MiB): large enough that the allocator maps it on its own. */
const SLAB_FLOATS = 1 << 20;

/**
 * Float32Array views carved from a few large buffers. A combiner fit keeps thousands of small
 * arrays (each question's competitors) until it ends; allocated one by one they filled the
 * malloc heap, whose pages stayed with the process after the arrays were collected, under the
 * job's next step (DebianPkg's calibration started 150 MiB higher). A slab is mapped and
 * unmapped whole.
 */
export class Float32Slabs {
  private slab = new Float32Array(0);
  private used = 0;

  /** A copy of `values` in a slab (in a buffer of its own when longer than a slab). */
  copy(values: ArrayLike<number>): Float32Array {
    const view = this.take(values.length);
    view.set(values);
    return view;
  }

  private take(length: number): Float32Array {
    if (length > SLAB_FLOATS) return new Float32Array(length);
    if (this.used + length > this.slab.length) {
      this.slab = new Float32Array(SLAB_FLOATS);
      this.used = 0;
    }
    const view = this.slab.subarray(this.used, this.used + length);
    this.used += length;
    return view;
  }
}
