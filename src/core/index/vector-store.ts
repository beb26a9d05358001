// Chunk vectors in one contiguous Float32Array (row = chunk id), with an exact cosine top-k per note.
// Vectors are unit length (the embedder normalises), so cosine is a dot product. Where WebAssembly SIMD is available
// the array lives in the scan kernel's memory and the kernel computes the dot products; otherwise a JS loop does.
import { createScanKernel, type ScanKernel } from './simd-scan.js';

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
  private readonly kernel: ScanKernel | null;

  constructor(readonly dimension: number, capacity = 1024) {
    this.kernel = dimension > 0 && dimension % 16 === 0 ? createScanKernel() : null;
    this.data = new Float32Array(0);
    this.has = new Uint8Array(0);
    this.resize(Math.max(1, capacity));
  }

  /** A store holding the given rows (from a snapshot). */
  static from(dimension: number, has: Uint8Array, data: Float32Array, rows: number): VectorStore {
    const v = new VectorStore(dimension, Math.max(1, rows));
    v.data.set(data.subarray(0, rows * dimension));
    v.has.set(has.subarray(0, rows));
    v.rows = rows;
    return v;
  }

  /** Byte offsets of the kernel's scratch (query, scores): after the data. */
  private scratch(): { q: number; out: number } {
    const q = this.has.length * this.dimension * 4;
    return { q, out: q + this.dimension * 4 };
  }

  /** Grows to hold `rows` rows exactly (avoids doubling past what a build needs). */
  reserve(rows: number): void {
    if (rows > this.has.length) this.resize(rows);
  }

  private ensure(row: number): void {
    if (row < this.has.length) return;
    this.resize(Math.max(row + 1, this.has.length * 2));
  }

  private resize(cap: number): void {
    let data: Float32Array<ArrayBufferLike>;
    if (this.kernel) {
      // Data at byte 0 of the kernel's memory, then the scratch; growing keeps the bytes, so only the view changes.
      const mem = this.kernel.memory;
      const need = cap * this.dimension * 4 + this.dimension * 4 + cap * 4;
      if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
      data = new Float32Array(mem.buffer, 0, cap * this.dimension);
    } else {
      data = new Float32Array(cap * this.dimension);
      data.set(this.data);
    }
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

  private scores = new Float32Array(0);

  private scoreJs(q: Float32Array, data: Float32Array, has: Uint8Array, rows: number, noteOf: Int32Array, allowed: Uint8Array | null): Float32Array {
    const d = this.dimension;
    if (this.scores.length < rows) this.scores = new Float32Array(Math.max(1024, rows * 2));
    const scores = this.scores;
    for (let r = 0; r < rows; r++) {
      const slot = noteOf[r];
      if (has[r] === 0 || slot < 0 || (allowed !== null && allowed[slot] === 0)) {
        scores[r] = -2;
        continue;
      }
      let off = r * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 7 < d; i += 8, off += 8) {
        s0 += q[i] * data[off] + q[i + 4] * data[off + 4];
        s1 += q[i + 1] * data[off + 1] + q[i + 5] * data[off + 5];
        s2 += q[i + 2] * data[off + 2] + q[i + 6] * data[off + 6];
        s3 += q[i + 3] * data[off + 3] + q[i + 7] * data[off + 7];
      }
      for (; i < d; i++, off++) s0 += q[i] * data[off];
      scores[r] = s0 + s1 + s2 + s3;
    }
    return scores;
  }

  /**
   * Best cosine per note, for rows whose note is allowed. `noteOf[row]` gives the row's note slot (-1 = dead).
   * Returns at most `k` notes, best first. Two passes: a tight dot-product loop into a scratch array, then a per-note
   * maximum (a note's rows are consecutive) fed to a small top-k heap.
   */
  search(q: Float32Array, k: number, noteOf: Int32Array, allowed: Uint8Array | null): VectorCandidate[] {
    const d = this.dimension;
    const data = this.data;
    const has = this.has;
    const rows = this.rows;
    let scores: Float32Array;
    if (this.kernel) {
      const { q: qOff, out } = this.scratch();
      new Float32Array(this.kernel.memory.buffer, qOff, d).set(q);
      scores = new Float32Array(this.kernel.memory.buffer, out, rows);
      if (allowed === null) {
        this.kernel.scan(qOff, 0, rows, d, out);
      } else {
        // Prefiltered: the kernel runs only over runs of rows whose note passes the filters.
        let start = -1;
        for (let r = 0; r <= rows; r++) {
          const ok = r < rows && noteOf[r] >= 0 && allowed[noteOf[r]] === 1;
          if (ok && start < 0) start = r;
          else if (!ok && start >= 0) {
            this.kernel.scan(qOff, start * d * 4, r - start, d, out + start * 4);
            start = -1;
          }
        }
      }
      for (let r = 0; r < rows; r++) {
        const slot = noteOf[r];
        if (has[r] === 0 || slot < 0 || (allowed !== null && allowed[slot] === 0)) scores[r] = -2;
      }
    } else {
      scores = this.scoreJs(q, data, has, rows, noteOf, allowed);
    }
    const heap = new TopK(k);
    let r = 0;
    while (r < rows) {
      const slot = noteOf[r];
      let best = scores[r];
      let bestRow = r;
      r++;
      while (r < rows && noteOf[r] === slot) {
        if (scores[r] > best) {
          best = scores[r];
          bestRow = r;
        }
        r++;
      }
      if (best > -2) heap.offer(best, bestRow, slot);
    }
    return heap.sorted().map((e) => ({ slot: e.id2, score: e.score, chunk: e.id }));
  }
}

/** A bounded min-heap keeping the k highest scores. */
export class TopK {
  private readonly score: Float64Array;
  private readonly id: Int32Array;
  private readonly id2: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    this.score = new Float64Array(k);
    this.id = new Int32Array(k);
    this.id2 = new Int32Array(k);
  }
  /** The lowest kept score once full (anything not above it is rejected). */
  floor(): number {
    return this.size < this.k ? -Infinity : this.score[0];
  }
  offer(score: number, id: number, id2 = 0): void {
    const { k } = this;
    if (k === 0) return;
    if (this.size < k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.score[p] <= score) break;
        this.move(p, i);
        i = p;
      }
      this.put(i, score, id, id2);
      return;
    }
    if (score <= this.score[0]) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= k) break;
      const c = l + 1 < k && this.score[l + 1] < this.score[l] ? l + 1 : l;
      if (this.score[c] >= score) break;
      this.move(c, i);
      i = c;
    }
    this.put(i, score, id, id2);
  }
  private move(from: number, to: number): void {
    this.score[to] = this.score[from];
    this.id[to] = this.id[from];
    this.id2[to] = this.id2[from];
  }
  private put(i: number, score: number, id: number, id2: number): void {
    this.score[i] = score;
    this.id[i] = id;
    this.id2[i] = id2;
  }
  sorted(): { score: number; id: number; id2: number }[] {
    const out: { score: number; id: number; id2: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ score: this.score[i], id: this.id[i], id2: this.id2[i] });
    return out.sort((a, b) => b.score - a.score);
  }
}
