// Reading order across the notes of a numbered series: "D1:3" follows "D1:2", "Part 10" follows "Part 9", and what
// the notes before say of a question is context for the note after. In a conversation kept a turn a note, the turn
// that answers ("5 years already!") follows the turn that names the topic ("How long have you been married?").
import { bodyTermScore } from './bm25f.js';
import type { TextIndex } from './text-index.js';
import type { Bm25Params, TextCandidate } from './text-types.js';

/** A note's path with the number that ends its name moved by `step` (its width kept), or undefined when none. */
export function seriesPath(path: string, step: 1 | -1): string | undefined {
  const m = /^(.*?)(\d+)(\.md)$/i.exec(path);
  if (!m) return undefined;
  const n = Number(m[2]) + step;
  if (n < 0 || m[2].length > 15) return undefined;
  const digits = m[2].startsWith('0') ? String(n).padStart(m[2].length, '0') : String(n);
  return `${m[1]}${digits}${m[3]}`;
}

/** The share of `Bm25Params.follows` a note takes when the note before it asks nothing. */
export const AFTER_STATEMENT = 0.25;
/**
 * The share of `Bm25Params.follows` a note takes of the note two before it when the note between asks a question: in a
 * conversation the same speaker, who named the topic before being asked about it ("We had a picnic" / "What did you
 * play?" / "Charades").
 */
export const TWO_BEFORE = 0.4;

/**
 * Why a note was raised: the notes before it that gave to it, nearest first, and the question's terms they held, each
 * with what it counts in the note's coverage: in full when the note answers a question (what was asked and the topic
 * before it are what it speaks of), AFTER_STATEMENT of it otherwise.
 */
export interface Follows {
  from: number[];
  terms: Map<string, number>;
}

/**
 * Each candidate, and the two notes after each (when allowed), grows by what the notes before it in its series hold
 * of the query that it lacks itself: each such term's BM25 gain in the last passage of a note before, at `p.follows`
 * for the note just before when that passage asks a question (AFTER_STATEMENT of it when it does not), and then at
 * TWO_BEFORE of it for the note before the question. Only for a query of two terms or more. Returns the candidates
 * (new ones added), best first, and for each raised note where its gain came from.
 */
export function followOn(text: TextIndex, top: TextCandidate[], terms: string[], allowed: Uint8Array | null, p: Bm25Params): { top: TextCandidate[]; follows: Map<number, Follows> } {
  const follows = new Map<number, Follows>();
  // One word asked is no question a turn answers: the notes that say it are what is asked for.
  if (p.follows <= 0 || terms.length < 2 || top.length === 0) return { top, follows };
  const bf = text.fields.body;
  const avg = bf.averageLength();
  const posts = terms.map((t) => bf.terms.get(t));
  const idfs = terms.map((t) => text.idf(t));
  const bySlot = new Map(top.map((c) => [c.slot, c]));
  const slotAt = (path: string | undefined): number | undefined => {
    const s = path === undefined ? undefined : text.slotOf.get(path);
    return s !== undefined && text.notes[s] && (allowed === null || allowed[s] === 1) ? s : undefined;
  };
  const step = (slot: number, dir: 1 | -1): number | undefined => slotAt(seriesPath(text.notes[slot]!.path, dir));
  for (const c of top) {
    for (let next = step(c.slot, 1), k = 0; next !== undefined && k < 2; next = step(next, 1), k++) {
      if (!bySlot.has(next)) bySlot.set(next, { slot: next, score: 0, bestChunk: text.notes[next]!.firstChunk });
    }
  }
  for (const c of bySlot.values()) {
    const n = text.notes[c.slot]!;
    const from: number[] = [];
    const held = new Map<string, number>();
    let asked = false;
    for (let prev = step(c.slot, -1), k = 0; prev !== undefined && k < 2; prev = step(prev, -1), k++) {
      const pn = text.notes[prev]!;
      const last = pn.firstChunk + pn.chunkCount - 1;
      // A note that follows a question is most often its answer.
      if (k === 0) asked = text.chunkText[last]?.includes('?') ?? false;
      else if (!asked) break;
      const share = p.follows * (k === 1 ? TWO_BEFORE : asked ? 1 : AFTER_STATEMENT);
      let gain = 0;
      for (let i = 0; i < terms.length; i++) {
        const tf = posts[i]?.tfOf(last) ?? 0;
        if (tf === 0 || holds(text, c.slot, n.firstChunk, terms[i])) continue;
        gain += bodyTermScore(bf, avg, last, tf, idfs[i], p);
        held.set(terms[i], asked ? 1 : AFTER_STATEMENT);
      }
      if (gain === 0 || share === 0) continue;
      c.score += share * gain;
      from.push(prev);
    }
    if (from.length > 0) follows.set(c.slot, { from, terms: held });
  }
  const out = [...bySlot.values()].filter((c) => c.score > 0);
  return { top: out.sort((a, b) => b.score - a.score), follows };
}

/** Whether a note holds a term in its title, summary or tags, or in the passage read first. */
function holds(text: TextIndex, slot: number, first: number, term: string): boolean {
  if ((text.fields.body.terms.get(term)?.tfOf(first) ?? 0) > 0) return true;
  return (['title', 'summary', 'tags'] as const).some((f) => (text.fields[f].terms.get(term)?.tfOf(slot) ?? 0) > 0);
}
