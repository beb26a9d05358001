// Scores what an extractor filed against sessions a person annotated by reading them (`engram eval extraction`,
// bench/extraction-quality.bench.ts): precision and recall per type, recall of what was stated outright, notes that
// hold the agent's words, and whether each session landed in the right project. Pure: the host runs the extractor.
import { EngramError } from '../errors.js';

export type Stated = 'explicit' | 'near' | 'implicit';

export interface AnnotatedItem {
  /** Turn.index of the user turn that states it. */
  turn: number;
  /** Other turns that state the same item (a repeat, a refinement): a note on any of them counts. */
  alsoTurns?: number[];
  uuid?: string;
  type: string;
  stated: Stated;
  /** A few words that identify the item in its turn. */
  quote: string;
}

export interface AnnotatedSession {
  /** Path relative to the set's transcripts folder. */
  file: string;
  /** The project a person would file the session under. */
  project?: string;
  items: AnnotatedItem[];
  /** What a person would not keep (turn-scoped steering, pasted review comments): a note there is wrong. */
  steering?: { turn: number; quote: string; why?: string }[];
}

export interface ExtractionSet {
  about?: string;
  /** Where the files are, relative to the shared folder (informational). */
  transcripts?: string;
  /** For a set outside the shared corpus: the environment variable naming the folder the files were extracted to (benches). */
  transcriptsEnv?: string;
  /** Every session in the transcripts folder belongs to this project (a check of project resolution over all of them). */
  everySessionProject?: string;
  sessions: AnnotatedSession[];
}

/** One note an extractor filed, as the scorer needs it. */
export interface FiledNote {
  type: string;
  title: string;
  /** The turns the note cites. */
  turns: number[];
  /** The note's text came from an assistant turn (or quotes the agent rather than the user). */
  agentText?: boolean;
}

export interface SessionRun {
  file: string;
  notes: FiledNote[];
  /** The project the session was filed under, and whether it was a guess. */
  project?: string;
  projectGuess?: boolean;
}

export interface TypeScore {
  notes: number;
  correct: number;
  items: number;
  found: number;
  precision: number | null;
  recall: number | null;
}

export interface ExtractionScore {
  sessions: number;
  notes: number;
  correct: number;
  precision: number | null;
  /** Recall over every durable item. */
  recall: number | null;
  /** Recall over the items stated explicitly or near-explicitly (what `rules` is meant to catch). */
  recallStated: number | null;
  statedItems: number;
  statedFound: number;
  items: number;
  found: number;
  byType: Record<string, TypeScore>;
  agentText: number;
  projects: { checked: number; right: number; guessed: number; share: number | null };
  /** Every wrong note and every missed stated item, for reading. */
  wrong: { file: string; turn: number[]; type: string; title: string; why: string }[];
  missed: { file: string; turn: number; type: string; stated: Stated; quote: string }[];
}

const TYPES = new Set(['decision', 'correction', 'insight', 'problem', 'failed-approach', 'reference']);

/** Reads and checks an annotated set; a bad entry is a clear error naming it. */
export function parseExtractionSet(text: string, file: string): ExtractionSet {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EngramError('usage', `${file} is not valid JSON: ${(e as Error).message}`);
  }
  const sessions = (raw as { sessions?: unknown }).sessions;
  if (!Array.isArray(sessions)) throw new EngramError('usage', `${file}: "sessions" must be a list`);
  sessions.forEach((s: Partial<AnnotatedSession>, i) => {
    const at = `${file}: session ${i + 1}`;
    if (typeof s?.file !== 'string' || !s.file) throw new EngramError('usage', `${at}: "file" must name a transcript`);
    if (!Array.isArray(s.items)) throw new EngramError('usage', `${at} (${s.file}): "items" must be a list`);
    s.items.forEach((it: Partial<AnnotatedItem>, k) => {
      if (typeof it?.turn !== 'number' || !TYPES.has(String(it.type)) || !['explicit', 'near', 'implicit'].includes(String(it.stated))) {
        throw new EngramError('usage', `${at} (${s.file}) item ${k + 1}: needs "turn" (a number), "type" (${[...TYPES].join(', ')}) and "stated" (explicit, near or implicit)`);
      }
    });
  });
  return raw as ExtractionSet;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

function turnsOf(item: AnnotatedItem): number[] {
  return [item.turn, ...(item.alsoTurns ?? [])];
}

/** Scores the runs against the set: a note is right when it cites a turn that states an annotated item. */
export function scoreExtraction(set: ExtractionSet, runs: SessionRun[]): ExtractionScore {
  const byFile = new Map(runs.map((r) => [r.file, r]));
  const byType: Record<string, TypeScore> = {};
  const type = (t: string): TypeScore => (byType[t] ??= { notes: 0, correct: 0, items: 0, found: 0, precision: null, recall: null });
  const out: ExtractionScore = {
    sessions: 0,
    notes: 0,
    correct: 0,
    precision: null,
    recall: null,
    recallStated: null,
    statedItems: 0,
    statedFound: 0,
    items: 0,
    found: 0,
    byType,
    agentText: 0,
    projects: { checked: 0, right: 0, guessed: 0, share: null },
    wrong: [],
    missed: [],
  };
  for (const s of set.sessions) {
    const run = byFile.get(s.file);
    if (!run) continue;
    out.sessions++;
    if (s.project) {
      out.projects.checked++;
      if (run.project === s.project) out.projects.right++;
      if (run.projectGuess) out.projects.guessed++;
    }
    const matched = new Set<AnnotatedItem>();
    for (const n of run.notes) {
      out.notes++;
      type(n.type).notes++;
      if (n.agentText) out.agentText++;
      const item = n.agentText ? undefined : s.items.find((it) => turnsOf(it).some((t) => n.turns.includes(t)));
      if (item) {
        out.correct++;
        type(n.type).correct++;
        matched.add(item);
      } else {
        const steer = s.steering?.find((st) => n.turns.includes(st.turn));
        const why = n.agentText ? 'the agent\'s words' : steer ? `not durable: ${steer.why ?? steer.quote}` : 'no durable item there';
        out.wrong.push({ file: s.file, turn: n.turns, type: n.type, title: n.title, why });
      }
    }
    for (const it of s.items) {
      out.items++;
      type(it.type).items++;
      const found = matched.has(it);
      if (found) {
        out.found++;
        type(it.type).found++;
      }
      if (it.stated !== 'implicit') {
        out.statedItems++;
        if (found) out.statedFound++;
        else out.missed.push({ file: s.file, turn: it.turn, type: it.type, stated: it.stated, quote: it.quote });
      }
    }
  }
  for (const t of Object.values(byType)) {
    t.precision = ratio(t.correct, t.notes);
    t.recall = ratio(t.found, t.items);
  }
  out.precision = ratio(out.correct, out.notes);
  out.recall = ratio(out.found, out.items);
  out.recallStated = ratio(out.statedFound, out.statedItems);
  out.projects.share = ratio(out.projects.right, out.projects.checked);
  return out;
}

/** The turns a note's provenance line cites ("… session `id`, turns 3, 5; extracted …"). */
export function citedTurns(noteText: string): number[] {
  const m = /\bturns? ((?:\d+(?:, )?)+);/.exec(noteText);
  return m ? m[1].split(',').map((x) => Number(x.trim())).filter((x) => Number.isInteger(x)) : [];
}

const fmt = (x: number | null): string => (x === null ? '  -  ' : x.toFixed(2));

/** The score as rows a person reads, beside a previous run when there is one. */
export function formatExtractionScore(label: string, now: ExtractionScore, before?: ExtractionScore | null): string[] {
  const was = (pick: (s: ExtractionScore) => number | null): string => (before ? ` (was ${fmt(pick(before))})` : '');
  const lines = [
    `${label}: ${now.sessions} sessions, ${now.notes} notes, ${now.correct} right`,
    `  precision ${fmt(now.precision)}${was((s) => s.precision)}   recall of stated items ${fmt(now.recallStated)} (${now.statedFound}/${now.statedItems})${was((s) => s.recallStated)}   recall of all items ${fmt(now.recall)} (${now.found}/${now.items})${was((s) => s.recall)}`,
    `  notes holding the agent's words: ${now.agentText}${before ? ` (was ${before.agentText})` : ''}   projects right: ${now.projects.right}/${now.projects.checked}${now.projects.guessed ? ` (${now.projects.guessed} guessed)` : ''}${was((s) => s.projects.share)}`,
    `  ${'type'.padEnd(16)} notes  right  precision  items  found  recall`,
  ];
  for (const [t, s] of Object.entries(now.byType).sort()) {
    const b = before?.byType[t];
    lines.push(`  ${t.padEnd(16)} ${String(s.notes).padStart(5)}  ${String(s.correct).padStart(5)}  ${fmt(s.precision).padStart(9)}  ${String(s.items).padStart(5)}  ${String(s.found).padStart(5)}  ${fmt(s.recall).padStart(6)}${b ? `   (was ${fmt(b.precision)} / ${fmt(b.recall)})` : ''}`);
  }
  return lines;
}
