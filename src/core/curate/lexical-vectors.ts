// Word vectors for curation when the index has no embeddings (no model installed, BM25-only): hashed
// TF-IDF over title and body, unit length. Near-duplicate notes share most words, so they still come out close;
// notes that say the same thing in different words need the real embeddings.
import { Tokenizer } from '../index/tokenize';
import type { NoteCatalog } from './catalog';
import type { NoteVectors } from './merge-candidates';

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Every word counts (IDF weighs common ones down) and compounds stay whole: notes on `LLVM and` and `LLVM or`, or on
// `pre-order` and `post-order`, must not look the same.
const words = new Tokenizer({ stopWords: false, compounds: true });

function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  // The index's tokens, stemmed ("merge", "merging" together); single letters say nothing.
  for (const t of words.terms(text)) if (t.length > 1) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

export class LexicalVectors implements NoteVectors {
  readonly modelId = 'engram-lexical-hash';
  private readonly vectors = new Map<string, Float32Array>();

  constructor(catalog: NoteCatalog, paths: Iterable<string>, readonly dimension = 384) {
    const docs: Array<[string, Map<string, number>]> = [];
    const df = new Map<string, number>();
    for (const p of paths) {
      const n = catalog.get(p);
      if (!n) continue;
      const counts = termCounts(`${n.meta?.title ?? ''} ${n.body}`);
      docs.push([p, counts]);
      for (const t of counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    }
    const total = docs.length;
    for (const [p, counts] of docs) {
      const v = new Float32Array(dimension);
      for (const [t, c] of counts) {
        const idf = Math.log(1 + total / (df.get(t) ?? 1));
        const h = fnv(t);
        // The top bit picks a sign, so unrelated words cancel instead of piling up.
        v[h % dimension] += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(c)) * idf;
      }
      let norm = 0;
      for (let i = 0; i < dimension; i++) norm += v[i] * v[i];
      if (norm === 0) continue;
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < dimension; i++) v[i] *= inv;
      this.vectors.set(p, v);
    }
  }

  vector(path: string): Float32Array | undefined {
    return this.vectors.get(path);
  }
}
