import { describe, expect, it } from 'vitest';
import { VectorStore } from '../../../src/core/index/vector-store.js';
import { createScanKernel } from '../../../src/core/index/simd-scan.js';

function rand(seed: number): () => number {
  let s = seed;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}
function unit(r: () => number, d: number): Float32Array {
  const v = new Float32Array(d).map(() => r());
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe('vector store', () => {
  it('has a WebAssembly SIMD kernel on this platform', () => {
    expect(createScanKernel()).not.toBeNull();
  });

  for (const dim of [384, 12]) {
    it(`exact top-k per note equals brute force (dimension ${dim}: ${dim % 16 === 0 ? 'SIMD kernel' : 'JS loop'}), with filters`, () => {
      const r = rand(dim);
      const store = new VectorStore(dim, 4);
      const rows = 3000;
      const noteOf = new Int32Array(rows);
      const vecs: Float32Array[] = [];
      for (let i = 0; i < rows; i++) {
        noteOf[i] = Math.floor(i / 3); // three chunks per note
        vecs.push(unit(r, dim));
        if (i % 17 !== 0) store.set(i, vecs[i]); // some chunks without a vector
      }
      noteOf[5] = -1; // a dead chunk
      const allowed = new Uint8Array(1000).map((_, i) => (i % 4 === 0 ? 0 : 1));
      const q = unit(r, dim);
      const want = new Map<number, number>();
      for (let i = 0; i < rows; i++) {
        if (i % 17 === 0 || noteOf[i] < 0 || allowed[noteOf[i]] === 0) continue;
        const s = vecs[i].reduce((a, x, j) => a + x * q[j], 0);
        if (s > (want.get(noteOf[i]) ?? -9)) want.set(noteOf[i], s);
      }
      const best = [...want].sort((a, b) => b[1] - a[1]).slice(0, 25);
      const got = store.search(q, 25, noteOf, allowed);
      expect(got.map((g) => g.slot)).toEqual(best.map((b) => b[0]));
      got.forEach((g, i) => expect(g.score).toBeCloseTo(best[i][1], 5));
      expect(got.every((g) => noteOf[g.chunk] === g.slot)).toBe(true);
    });
  }

  it('keeps its rows when it grows, and after compaction', () => {
    const store = new VectorStore(16, 1);
    const r = rand(1);
    const vs = Array.from({ length: 100 }, () => unit(r, 16));
    vs.forEach((v, i) => store.set(i, v));
    vs.forEach((v, i) => expect([...store.get(i)!]).toEqual([...v]));
    const map = new Int32Array(100).map((_, i) => (i % 2 ? (i - 1) / 2 : -1));
    store.compact(map);
    expect(store.rows).toBe(50);
    expect([...store.get(10)!]).toEqual([...vs[21]]);
  });
});
