// What the full-text index stores and scores with: a note's record, the four BM25 fields and their weights, a scored
// candidate, and the top-k cut (text-index.ts is the index itself).

export interface IndexedNote {
  path: string;
  /** What the title field indexes: the file name, the display name when it differs, and the aliases. */
  title: string;
  /** The name a person knows the note by, when it is not the file name: frontmatter `title`, else the first H1. */
  name?: string;
  /** Folder path ('' at the vault root). */
  folder: string;
  hash: string;
  mtime: number;
  size: number;
  type?: string;
  scope?: 'project' | 'general';
  project?: string;
  /** Working memory (has review_after). */
  working: boolean;
  tags: string[];
  /** updated, else created, else mtime: epoch ms. */
  time: number;
  /**
   * For a note dated only by its file: the latest date among its other properties (`last: 2023-09-01`, `clipped:`),
   * what a question's time phrase ("in September 2023") is matched against. Recency still reads `time`.
   */
  dated?: number;
  confidence?: number;
  summary?: string;
  /** The frontmatter's other keys with their values, a line a key ("year: 1957"): shown when a query asks for one. */
  props?: string;
  superseded: boolean;
  /** Link targets, normalised by `linkKey`. */
  links: string[];
  /** Hash of the normalised text, for near-duplicate collapse. */
  dupKey: string;
  /** Written by Engram (or Cyberbrain): embedded by title + summary + tags rather than by chunk. */
  beat: boolean;
  firstChunk: number;
  chunkCount: number;
}

export type FieldName = 'title' | 'summary' | 'tags' | 'body';
export const FIELDS: FieldName[] = ['title', 'summary', 'tags', 'body'];

export interface Bm25Params {
  weights: Record<FieldName, number>;
  k1: number;
  b: number;
  /**
   * Weight of a note's second and third best matching passages, added to its best (0 = best passage only). Only those
   * two count: a note of 400 passages cannot outscore a focused one by matching a word in each.
   */
  restChunks: number;
  /**
   * Weight of what a note's other passages hold of the query that its best passage lacks (each such term's best gain):
   * a note whose evidence is spread over passages ("metrics" only in its list of sources) is found, while a long list
   * that repeats the best passage's words gains nothing from the repeats.
   */
  restTerms: number;
  /**
   * A note's score grows by up to this share when the query holds its title's words (the share of them held): what a
   * note is named for is what it is about, which BM25F's one saturation of title and body counts only as a mention.
   */
  titleCover: number;
  /**
   * A question that asks when ("when did…", "what year…") raises a passage that tells when ("yesterday", "last week",
   * "two days ago") by this share (time-phrases.ts `whenFactor`; 0 = off).
   */
  whenGain: number;
  /**
   * A note of a numbered series ("D1:3" after "D1:2") grows by this share of what the note before it holds of the
   * query that it lacks, when the note before asks a question; by less otherwise and from the note two before
   * (reading-order.ts; 0 = off).
   */
  follows: number;
}

// b tuned on LoCoMo conv-26/30/41/42 (turn level): lower length normalisation than the textbook 0.75 suits short notes
// and natural-language questions (bench/index.bench.ts). k1 was 0.7 there too; with the title, summary and tags now
// saturating together with each passage (BM25F), 1.0 lets a body that says a word six times count beside a title that
// says it once: bench/recall-sets hit@3 dwarvesf-brain 0.93 -> 0.96, the other two vaults equal or better, for LoCoMo
// nDCG@10 0.524 -> 0.520 (untitled turns: only k1 changes there).
// titleCover 0.1 (bench/recall-sets, same run): MRR 0.93 -> 0.93, 0.92 -> 0.93, 0.93 -> 0.94 and hit@3 0.96 -> 0.98,
// 0.96, 0.98 on the Zettelkasten, dwarvesf and kepano vaults; 0.2 and 0.35 cost the Zettelkasten's or dwarvesf's MRR.
// whenGain 0.4: LoCoMo dev set (time-phrases.ts).
// follows 0.7 (a quarter after a statement, 0.4 of it from the note before a question): LoCoMo dev set nDCG@10
// 0.528 -> 0.589, every category up; the note before alone at 0.5, 0.553; with the question rule, 0.573; follows 0.8
// 0.593 but temporal questions no better than 0.682, 0.6 0.583 (docs/recall.md).
// restTerms 0.3 with restChunks 0.2 -> 0.05 (same sets, hit@3 / MRR): Zettelkasten 0.98/0.93 -> 1.00/0.93, dwarvesf
// 0.96/0.93 -> 0.96/0.95 (vague-or-synonym MRR 0.71 -> 0.78), kepano 0.98/0.94 -> 0.98/0.95, held-out questions equal
// or better; Obsidian Help in five languages (bench lang-recall) MRR en 0.59 -> 0.63, zh 0.78 -> 0.79, ja 0.73 ->
// 0.72, de 0.57 -> 0.62, fr 0.66 -> 0.69, hit@3 equal or better. restTerms 0.4 or 0.5, or restChunks 0 or 0.15, cost
// dwarvesf hit@3 or MRR; restChunks 0.1 cost German and Japanese.
export const DEFAULT_BM25: Bm25Params = { weights: { title: 3, summary: 2, tags: 1.5, body: 1 }, k1: 1.0, b: 0.4, restChunks: 0.05, restTerms: 0.3, titleCover: 0.1, whenGain: 0.4, follows: 0.7 };

/**
 * A list of links matches a question by the names of the notes it points to; those notes hold the answer. Such a
 * passage counts at this share (a map of contents was in 14% of dwarvesf-brain's top 3s at full weight).
 */
export const LINK_LIST_WEIGHT = 0.5;

export interface TextCandidate {
  slot: number;
  score: number;
  bestChunk: number;
}

/** Keeps the k best of a list by score, best first. */
export function topK<T extends { score: number }>(items: T[], k: number): T[] {
  if (items.length <= k * 4) return items.sort((a, b) => b.score - a.score).slice(0, k);
  // A window of the k best kept in ascending order; a better item replaces the smallest and bubbles into place.
  const heap: T[] = [];
  for (const it of items) {
    if (heap.length < k) {
      heap.push(it);
      if (heap.length === k) heap.sort((a, b) => a.score - b.score);
    } else if (it.score > heap[0].score) {
      heap[0] = it;
      let i = 0;
      while (i + 1 < heap.length && heap[i].score > heap[i + 1].score) {
        const tmp = heap[i];
        heap[i] = heap[i + 1];
        heap[i + 1] = tmp;
        i++;
      }
    }
  }
  return heap.sort((a, b) => b.score - a.score);
}
