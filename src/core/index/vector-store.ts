// Chunk vectors in one contiguous Float32Array (row = chunk id), with an exact cosine top-k per note.
// Vectors are unit length (the embedder normalises), so cosine is a dot product.

export interface VectorCandidate {
  slot: number;
  score: number;
  chunk: number;
}

export class VectorStore {
  data: Float32Array<ArrayBufferLike>;
  /** 1 when the row holds a vector. */
  has: Uint8Array<ArrayBufferLike>;
  rows = 0;

  constructor(readonly dimension: number, capacity = 1024) {
    this.data = new Float32Array(capacity * dimension);
    this.has = new Uint8Array(capacity);
  }

  private ensure(row: number): void {
    if (row < this.has.length) return;
    const cap = Math.max(row + 1, this.has.length * 2);
    const data = new Float32Array(cap * this.dimension);
    data.set(this.data);
    const has = new Uint8Array(cap);
    has.set(this.has);
    this.data = data;
    this.has = has;
  }

  set(row: number, v: Float32Array): void {
    if (v.length !== this.dimension) throw new Error(`vector of dimension ${v.length}, index holds ${this.dimension}`);
    this.ensure(row);
    this.data.set(v, row * this.dimension);
    this.has[row] = 1;
    if (row >= this.rows) this.rows = row + 1;
  }

  get(row: number): Float32Array | null {
    return row < this.rows && this.has[row] ? this.data.subarray(row * this.dimension, (row + 1) * this.dimension) : null;
  }

  clear(row: number): void {
    if (row < this.has.length) this.has[row] = 0;
  }

  count(): number {
    let n = 0;
    for (let i = 0; i < this.rows; i++) n += this.has[i];
    return n;
  }

  /** Follows a text-index compaction (old chunk id -> new id or -1). */
  compact(map: Int32Array): void {
    const d = this.dimension;
    let rows = 0;
    for (let old = 0; old < map.length && old < this.rows; old++) {
      const nr = map[old];
      if (nr < 0) continue;
      if (this.has[old]) this.data.copyWithin(nr * d, old * d, (old + 1) * d);
      this.has[nr] = this.has[old];
      rows = Math.max(rows, nr + 1);
    }
    this.has.fill(0, rows);
    this.rows = rows;
  }

  /**
   * Best cosine per note, for rows whose note is allowed. `noteOf[row]` gives the row's note slot (-1 = dead).
   * Returns at most `k` notes, best first.
   */
  search(q: Float32Array, k: number, noteOf: Int32Array, allowed: Uint8Array | null): VectorCandidate[] {
    const d = this.dimension;
    const data = this.data;
    const has = this.has;
    const bestByNote = new Map<number, VectorCandidate>();
    // Rows are grouped by note (a note's chunks are consecutive), so a threshold from the k-th best prunes the sort.
    let floor = -Infinity;
    const kept: VectorCandidate[] = [];
    for (let r = 0; r < this.rows; r++) {
      if (has[r] === 0) continue;
      const slot = noteOf[r];
      if (slot < 0 || (allowed !== null && allowed[slot] === 0)) continue;
      let off = r * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < d; i += 4, off += 4) {
        s0 += q[i] * data[off];
        s1 += q[i + 1] * data[off + 1];
        s2 += q[i + 2] * data[off + 2];
        s3 += q[i + 3] * data[off + 3];
      }
      for (; i < d; i++, off++) s0 += q[i] * data[off];
      const s = s0 + s1 + s2 + s3;
      if (s <= floor) continue;
      const prev = bestByNote.get(slot);
      if (prev) {
        if (s > prev.score) {
          prev.score = s;
          prev.chunk = r;
        }
        continue;
      }
      const c = { slot, score: s, chunk: r };
      bestByNote.set(slot, c);
      kept.push(c);
      if (kept.length >= k * 8) {
        kept.sort((a, b) => b.score - a.score);
        for (const x of kept.splice(k)) bestByNote.delete(x.slot);
        floor = kept[k - 1].score;
      }
    }
    return kept.sort((a, b) => b.score - a.score).slice(0, k);
  }
}
