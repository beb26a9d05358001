// A note's meaning as one vector: the mean of its chunk vectors, unit length (curation compares notes this way).
import type { TextIndex } from './text-index.js';
import type { VectorStore } from './vector-store.js';

export interface IndexNoteVectors {
  modelId: string | null;
  count: number;
  vector(path: string): Float32Array | undefined;
}

/**
 * Each note's vector: the mean of its chunk vectors, unit length. Used on the live index (a host's curation) and on a
 * decoded snapshot (the CLI with no host). Null when no note has a vector.
 */
export function meanNoteVectors(text: TextIndex, vectors: VectorStore, modelId: string | null): IndexNoteVectors | null {
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
  return { modelId, count: byPath.size, vector: (p) => byPath.get(p) };
}
