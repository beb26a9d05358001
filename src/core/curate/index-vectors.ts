// Note vectors from the index's snapshot: the mean of a note's chunk vectors, unit length. Curation reads the
// snapshot through the index's own decoder, so embeddings are computed once (by the index) and never here.
import { decodeSnapshot, runSync } from '../index/snapshot';
import { TextIndex } from '../index/text-index';
import type { NoteVectors } from './merge-candidates';

export interface IndexVectors extends NoteVectors {
  modelId: string | null;
  count: number;
}

/** Null when the snapshot holds no vectors (BM25-only index). Throws on a damaged or foreign snapshot. */
export function vectorsFromSnapshot(bytes: Uint8Array): IndexVectors | null {
  const text = new TextIndex();
  const { header, vectors } = runSync(decodeSnapshot(bytes, text));
  if (!vectors) return null;
  const byPath = new Map<string, Float32Array>();
  for (const n of text.notes) {
    if (!n) continue;
    let v: Float32Array | null = null;
    for (let c = n.firstChunk; c < n.firstChunk + n.chunkCount; c++) {
      const row = vectors.get(c);
      if (!row) continue;
      if (!v) v = new Float32Array(row.length);
      for (let i = 0; i < row.length; i++) v[i] += row[i];
    }
    if (!v) continue;
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
    if (norm === 0) continue;
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
    byPath.set(n.path, v);
  }
  if (byPath.size === 0) return null;
  return { modelId: header.modelId, count: byPath.size, vector: (p) => byPath.get(p) };
}
