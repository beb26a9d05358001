// Curation reads note vectors from the index's own snapshot (embeddings computed once, by the index).
import { describe, expect, it } from 'vitest';
import { vectorsFromSnapshot } from '../../../src/core/curate/index-vectors';
import { VaultIndex } from '../../../src/core/index/vault-index';
import type { Embedder } from '../../../src/core/ports';
import { MemoryVault } from '../../../src/core/ports/memory-vault';

/** Deterministic bag-of-letters embedder: same text, same vector; enough to check the plumbing. */
const embedder: Embedder = {
  modelId: 'test-letters',
  dimension: 26,
  embed: (texts) =>
    Promise.resolve(
      texts.map((t) => {
        const v = new Float32Array(26);
        for (const ch of t.toLowerCase()) {
          const i = ch.charCodeAt(0) - 97;
          if (i >= 0 && i < 26) v[i] += 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      }),
    ),
};

describe('vectorsFromSnapshot', () => {
  it('gives one unit vector per embedded note, and none for a BM25-only snapshot', async () => {
    const vault = new MemoryVault({ files: { 'a.md': 'alpha alpha', 'b.md': '---\ntags: [x]\n---\n# One\n\nzebra\n\n# Two\n\nyak' } });
    const index = new VaultIndex({ vault, embedder });
    await index.build();
    await index.embedPending();
    const v = vectorsFromSnapshot(index.snapshot());
    expect(v?.modelId).toBe('test-letters');
    expect(v?.count).toBe(2);
    for (const p of ['a.md', 'b.md']) expect(Math.hypot(...v!.vector(p)!)).toBeCloseTo(1, 5);
    expect(v!.vector('missing.md')).toBeUndefined();
    const plain = new VaultIndex({ vault });
    await plain.build();
    expect(vectorsFromSnapshot(plain.snapshot())).toBeNull();
  });

  it('refuses a damaged snapshot', () => {
    expect(() => vectorsFromSnapshot(new Uint8Array([1, 2, 3]))).toThrow();
  });
});
