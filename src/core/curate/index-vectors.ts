// Note vectors from the index's snapshot: the mean of a note's chunk vectors, unit length. Curation reads the
// snapshot through the index's own decoder, so embeddings are computed once (by the index) and never here.
import { decodeSnapshot, runSync } from '../index/snapshot';
import { TextIndex } from '../index/text-index';
import { meanNoteVectors, type IndexNoteVectors } from '../index/note-vectors';
import type { NoteVectors } from './merge-candidates';

export type IndexVectors = IndexNoteVectors & NoteVectors;

/** Null when the snapshot holds no vectors (BM25-only index). Throws on a damaged or foreign snapshot. */
export function vectorsFromSnapshot(bytes: Uint8Array): IndexVectors | null {
  const text = new TextIndex();
  const { header, vectors } = runSync(decodeSnapshot(bytes, text));
  return vectors ? meanNoteVectors(text, vectors, header.modelId) : null;
}
