// Dedup before writing. Same content twice = one note. A beat that restates a note extends it only when
// that note is unlocked and was written by Engram (it has engram_id); otherwise, or when unsure, the beat
// is written and a possible-duplicate proposal is recorded. Never a silent merge.
import type { Beat } from './beat.js';
import { isCjkTerm } from '../index/language.js';
import { Tokenizer } from '../index/tokenize.js';
import { contentKey, type VaultCatalog } from './vault-catalog.js';

export interface SimilarHit {
  path: string;
  /** 0 (unrelated) to 1 (the same text). */
  score: number;
}

/** What dedup asks of the index; a word-overlap version over the catalog is used until the index plugs in. */
export interface SimilarNotes {
  findSimilar(text: string, limit?: number): Promise<SimilarHit[]>;
}

export interface DedupThresholds {
  /** At or above: the beat restates the note. */
  same: number;
  /**
   * At or above (and below `same`): maybe a duplicate, so a proposal. A beat at or above it that repeats every term of
   * the note restates it with new detail (a correction said again, quoted and explained by a model).
   */
  maybe: number;
}

/**
 * Tuned on the index's stop list with the table in tests/core/extract/dedup-thresholds.test.ts: every pair there is at
 * least 0.05 from the bar that decides it. Overlap alone cannot tell a restatement with new detail (a model's beat
 * quoting a correction the rules pass filed: 0.60) from another fact with one word swapped ("the payments/billing
 * service owns the invoices table": 0.67), so the first restates by repeating every term of the note, and `same` sits
 * above the swaps and paraphrases (0.64-0.69, proposed). Other facts on one topic stay below `maybe` (at most 0.43).
 */
export const DEFAULT_DEDUP: DedupThresholds = { same: 0.75, maybe: 0.5 };

export type DedupDecision =
  | { action: 'skip'; path: string; reason: string }
  | { action: 'extend'; path: string; score: number }
  | { action: 'write'; duplicateOf?: { path: string; score: number; reason: string } };

export function beatText(beat: Beat): string {
  return `${beat.title}\n${beat.summary}\n${beat.body}`;
}

export async function decide(beat: Beat, catalog: VaultCatalog, similar: SimilarNotes, t: DedupThresholds = DEFAULT_DEDUP): Promise<DedupDecision> {
  const same = catalog.sameContent(contentKey(beat.summary, beat.body));
  if (same) return { action: 'skip', path: same, reason: 'same content as an existing note' };
  const hits = await similar.findSimilar(beatText(beat), 3);
  const top = hits.find((h) => catalog.notes.has(h.path));
  if (!top || top.score < t.maybe) return { action: 'write' };
  const note = catalog.notes.get(top.path);
  const extendable = note !== undefined && note.valid && !note.meta.locked && note.meta.engramId !== undefined;
  const restates = top.score >= t.same || (note !== undefined && repeatsEveryTerm(beatText(beat), note.text) && !reverses(beatText(beat), note.text));
  // A number, version or path the note does not have is a different fact ("service 1" vs "service 2"), not a restatement.
  const noteTokens = distinctiveTokens(note?.text ?? '');
  const newFact = [...distinctiveTokens(beatText(beat))].some((x) => !noteTokens.has(x));
  if (newFact && restates) return { action: 'write', duplicateOf: { path: top.path, score: top.score, reason: 'similar to an existing note but with different numbers or names' } };
  if (restates && extendable) return { action: 'extend', path: top.path, score: top.score };
  const reason = restates ? (note?.meta.locked ? 'restates a locked note' : 'restates a note Engram did not write') : 'similar to an existing note';
  return { action: 'write', duplicateOf: { path: top.path, score: top.score, reason } };
}

/** Tokens that carry identity: anything with a digit, and paths. */
export function distinctiveTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().match(/[\p{L}\p{N}_./-]*\d[\p{L}\p{N}_./-]*|[\p{L}\p{N}_.-]*\/[\p{L}\p{N}_./-]+/gu) ?? []) {
    const tok = m.replace(/^[./-]+|[./-]+$/g, '');
    if (tok) out.add(tok);
  }
  return out;
}

// The index's tokenizer and stop list (stemmed); compounds (`pnpm-lock.yaml`, `v1.2`) stay whole, as they name one thing.
const words = new Tokenizer({ compounds: true });

/** A text's distinct terms of three characters or more (single letters, "go" or "js" say little about a fact), or of CJK characters. */
export function wordSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of words.terms(text)) if (t.length >= 3 || isCjkTerm(t)) out.add(t);
  return out;
}

/** Words that turn a statement around ("don't", "no longer", "instead"). */
const NEGATION = /\b(?:not|no|never|don[’']?t|doesn[’']?t|didn[’']?t|isn[’']?t|aren[’']?t|won[’']?t|can[’']?t|cannot|instead|anymore|longer|avoid|stop)\b/i;

/**
 * A beat that negates where its note does not ("Don't use moment.js anymore" against "Use moment.js for dates") turns
 * the note around: it may repeat every term and still be a correction of its own, never appended to the old note.
 */
function reverses(beat: string, note: string): boolean {
  return NEGATION.test(beat) && !NEGATION.test(note);
}

/** True when the beat repeats every term of the note (and the note has terms): it restates the note, perhaps with more. */
export function repeatsEveryTerm(beat: string, note: string): boolean {
  const a = wordSet(beat);
  const b = wordSet(note);
  if (b.size === 0) return false;
  for (const w of b) if (!a.has(w)) return false;
  return true;
}

/** Word-overlap similarity over the catalog (Jaccard of word sets). Good enough for restatements; the index does better. */
export function catalogSimilarity(catalog: VaultCatalog): SimilarNotes & { add(path: string, text: string): void } {
  return wordSimilarity([...catalog.notes].map(([path, note]) => [path, note.text]));
}

/** Word-overlap similarity over a set of texts that grows as notes are written. */
export function wordSimilarity(initial: [string, string][]): SimilarNotes & { add(path: string, text: string): void } {
  const sets = new Map<string, Set<string>>();
  for (const [path, text] of initial) sets.set(path, wordSet(text));
  return {
    add(path: string, text: string) {
      sets.set(path, wordSet(text));
    },
    findSimilar(text: string, limit = 5) {
      const a = wordSet(text);
      const hits: SimilarHit[] = [];
      if (a.size === 0) return Promise.resolve(hits);
      for (const [path, b] of sets) {
        let inter = 0;
        for (const w of a) if (b.has(w)) inter++;
        if (inter === 0) continue;
        hits.push({ path, score: inter / (a.size + b.size - inter) });
      }
      hits.sort((x, y) => y.score - x.score);
      return Promise.resolve(hits.slice(0, limit));
    },
  };
}

type IndexSearch = (query: string, opts: { limit?: number; mode?: 'hybrid' | 'bm25' | 'vector' }) => Promise<{ path: string }[]>;

/**
 * Dedup backed by the vault index: the index finds candidates across the whole vault (BM25, and meaning when
 * vectors exist), then each candidate is scored 0–1 by word overlap so that the thresholds mean the same as
 * without an index. Notes written during this run are scored too (the index may not have seen them yet).
 */
export function indexSimilarity(search: IndexSearch, candidates = 8): (catalog: VaultCatalog) => SimilarNotes & { add(path: string, text: string): void } {
  return (catalog) => {
    const fresh = wordSimilarity([]);
    return {
      add: (path, text) => fresh.add(path, text),
      async findSimilar(text: string, limit = 5) {
        const a = wordSet(text);
        if (a.size === 0) return [];
        let hits: { path: string }[] = [];
        try {
          hits = await search(text.slice(0, 500), { limit: candidates, mode: 'hybrid' });
        } catch {
          hits = [];
        }
        const scored: SimilarHit[] = [];
        for (const h of hits) {
          const note = catalog.notes.get(h.path);
          if (!note) continue;
          const b = wordSet(note.text);
          let inter = 0;
          for (const w of a) if (b.has(w)) inter++;
          if (inter > 0) scored.push({ path: h.path, score: inter / (a.size + b.size - inter) });
        }
        const merged = new Map<string, number>();
        for (const h of [...scored, ...(await fresh.findSimilar(text, limit))]) merged.set(h.path, Math.max(merged.get(h.path) ?? 0, h.score));
        return [...merged.entries()].map(([path, score]) => ({ path, score })).sort((x, y) => y.score - x.score).slice(0, limit);
      },
    };
  };
}
