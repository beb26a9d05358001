// One field's inverted index: term -> (doc id, term frequency) lists in typed arrays, append-only, ids ascending.
// Deleted docs stay in the lists as tombstones (the caller knows which ids are dead) until `compact` renumbers.

export class Posting {
  constructor(
    public ids: Int32Array,
    public tfs: Uint16Array,
    public n: number,
  ) {}

  push(id: number, tf: number): void {
    if (this.n === this.ids.length) {
      const cap = Math.max(4, this.n * 2);
      const ids = new Int32Array(cap);
      ids.set(this.ids.subarray(0, this.n));
      const tfs = new Uint16Array(cap);
      tfs.set(this.tfs.subarray(0, this.n));
      this.ids = ids;
      this.tfs = tfs;
    }
    this.ids[this.n] = id;
    this.tfs[this.n] = Math.min(tf, 65535);
    this.n++;
  }

  /** Term frequency of `id`, 0 when absent (binary search: ids are ascending). */
  tfOf(id: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.ids[mid];
      if (v === id) return this.tfs[mid];
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }
}

export class FieldIndex {
  readonly terms = new Map<string, Posting>();
  /** Token count per doc id. */
  lengths: Float32Array<ArrayBufferLike> = new Float32Array(1024);
  /** Sum of lengths and count of live docs, for the average length of BM25. */
  totalLength = 0;
  liveDocs = 0;

  add(id: number, tf: Map<string, number>, length: number): void {
    if (id >= this.lengths.length) {
      const next = new Float32Array(Math.max(id + 1, this.lengths.length * 2));
      next.set(this.lengths);
      this.lengths = next;
    }
    this.lengths[id] = length;
    this.totalLength += length;
    this.liveDocs++;
    for (const [term, n] of tf) {
      let p = this.terms.get(term);
      if (!p) {
        p = new Posting(new Int32Array(2), new Uint16Array(2), 0);
        this.terms.set(term, p);
      }
      p.push(id, n);
    }
  }

  /** Marks a doc gone for the statistics; its postings become tombstones. */
  retire(id: number): void {
    if (id >= this.lengths.length) return;
    this.totalLength -= this.lengths[id];
    this.liveDocs--;
  }

  averageLength(): number {
    return this.liveDocs > 0 ? Math.max(1, this.totalLength / this.liveDocs) : 1;
  }

  /** Drops the spare capacity growth left in every list (after a build: up to half the postings memory), in steps. */
  *trim(): Generator<void, void> {
    let done = 0;
    for (const p of this.terms.values()) {
      if (p.ids.length > p.n) {
        p.ids = p.ids.slice(0, p.n);
        p.tfs = p.tfs.slice(0, p.n);
      }
      if (++done % 1024 === 0) yield;
    }
  }

  /** Renumbers ids with `map` (old id -> new id, or -1 for dead) and drops dead entries and empty terms. */
  compact(map: Int32Array, newSize: number): void {
    for (const [term, p] of this.terms) {
      let w = 0;
      for (let r = 0; r < p.n; r++) {
        const nid = p.ids[r] < map.length ? map[p.ids[r]] : -1;
        if (nid >= 0) {
          p.ids[w] = nid;
          p.tfs[w] = p.tfs[r];
          w++;
        }
      }
      if (w === 0) this.terms.delete(term);
      else if (w < p.n / 2) {
        p.ids = p.ids.slice(0, w);
        p.tfs = p.tfs.slice(0, w);
      }
      p.n = w;
    }
    const lengths = new Float32Array(Math.max(1024, newSize));
    for (let old = 0; old < map.length && old < this.lengths.length; old++) if (map[old] >= 0) lengths[map[old]] = this.lengths[old];
    this.lengths = lengths;
  }
}
