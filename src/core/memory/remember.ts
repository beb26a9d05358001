// Files text given by an agent or the user as a note (engram_source: manual), through the note layer's one writer
// (file names, key order, collision rules). The same text twice is one note: its engram_id is derived from the text.
import { EngramError } from '../errors.js';
import { stableId } from '../hash.js';
import type { VaultPort } from '../ports.js';
import { DEFAULT_FOLDERS, routeFolder, type Folders } from '../note/route.js';
import { loadVocabulary } from '../note/vocabulary.js';
import { writeBeatNote } from '../note/write-beat.js';
import { phraseTitle } from '../note/title.js';
import { DEFAULT_DEDUP, wordSet, wordSimilarity } from '../extract/dedup.js';

export interface RememberInput {
  text: string;
  title?: string;
  type?: string;
  project?: string;
  scope?: 'project' | 'general';
  tags?: string[];
  /** When the text restates a note: `ask` (default) writes nothing and names the note; `extend` adds it to that note; `new` files it anyway. */
  onDuplicate?: 'ask' | 'extend' | 'new';
}

export interface RememberResult {
  path: string;
  /** True when this text was already remembered: nothing was written. */
  existed: boolean;
  /** The note this text restates (a paraphrase): nothing was written, unless `extended`. */
  duplicateOf?: { path: string; title: string; score: number };
  /** The text was added to `path`, an existing note, as a dated section. */
  extended?: boolean;
}

// Letters typed along one keyboard row ("asdf", "qwer", "zxcv"): a test, not a memory.
const KEY_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

function mashed(word: string): boolean {
  const w = word.toLowerCase();
  if (w.length < 3 || !/^[a-z]+$/.test(w)) return false;
  return KEY_ROWS.some((r) => r.includes(w)) || /^(\w{2,4})\1+$/.test(w);
}

/**
 * Why a text is not worth a note, or null: fewer than two words that carry meaning ("ok", "thanks"), or mostly
 * keyboard mash ("asdf qwer zxcv"). The words are the index's own (the dedup module's word set).
 */
export function rememberContentProblem(text: string): string | null {
  const terms = wordSet(text);
  const raw = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (raw.length > 0 && raw.filter(mashed).length * 2 >= raw.length) return `"${text.trim().slice(0, 40)}" looks like keyboard mash, not something to keep`;
  if (terms.size < 2) return `"${text.trim().slice(0, 40)}" has nothing to keep: say what was decided, corrected or learned, self-contained`;
  return null;
}

/** The note among `candidates` (path, title, text) this text restates, by the dedup module's word overlap and its "maybe" bar. */
export async function restatedNote(text: string, candidates: { path: string; title: string; text: string }[]): Promise<{ path: string; title: string; score: number } | null> {
  const [top] = await wordSimilarity(candidates.map((c) => [c.path, c.text])).findSimilar(text, 1);
  if (!top || top.score < DEFAULT_DEDUP.maybe) return null;
  const c = candidates.find((x) => x.path === top.path)!;
  return { path: c.path, title: c.title, score: Math.round(top.score * 100) / 100 };
}

/** Adds remembered text to an existing note as a dated section (never overwriting a change made meanwhile). */
export async function extendNote(vault: VaultPort, path: string, text: string, now: number): Promise<void> {
  const before = (await vault.read(path)).text;
  const day = new Date(now).toISOString().slice(0, 10);
  await vault.writeIfUnchanged(path, before, `${before.replace(/\s+$/, '')}\n\n## ${day}\n${text.replace(/\r\n/g, '\n').trim()}\n`);
}

/** The first line of a text, without Markdown heading marks, as a whole phrase under `max` characters (note/title.ts). */
export function titleFromText(text: string, max = 80): string {
  const first = (text.split(/\r?\n/).find((l) => l.trim()) ?? '').replace(/^#+\s*/, '').replace(/\s+/g, ' ').trim();
  return first.length < max ? first : phraseTitle(first, max - 1) || first.slice(0, max - 1);
}

/** The engram_id of remembered text: the same words (whitespace aside) in the same project are the same note. */
export function rememberId(text: string, project: string | undefined): string {
  return stableId(['manual', project ?? '', text.replace(/\s+/g, ' ').trim()]);
}

export async function rememberNote(
  vault: VaultPort,
  folders: Pick<Folders, 'inbox' | 'projects'>,
  input: RememberInput,
  now: number,
  existing: (engramId: string) => string | undefined,
): Promise<RememberResult> {
  const body = input.text.replace(/\r\n/g, '\n').trim();
  if (!body) throw new EngramError('usage', 'remember needs some text: it was empty or only whitespace');
  const problem = rememberContentProblem(body);
  if (problem) throw new EngramError('refused', `not remembered: ${problem}`);
  const vocabulary = await loadVocabulary(vault);
  const names = vocabulary.types.map((t) => t.name);
  const type = (input.type ?? 'insight').trim().toLowerCase();
  if (!names.includes(type)) {
    throw new EngramError('usage', `unknown note type "${input.type}"`, `use one of: ${names.join(', ')}${vocabulary.source === 'defaults' ? '' : ' (from ENGRAM.md)'}`);
  }
  const scope = input.scope ?? (input.project ? 'project' : 'general');
  const project = scope === 'project' ? input.project : undefined;
  const engramId = rememberId(body, project);
  const already = existing(engramId);
  if (already) return { path: already, existed: true };
  const path = await writeBeatNote(vault, routeFolder({ scope, project }, { ...DEFAULT_FOLDERS, ...folders }), {
    title: (input.title?.trim() ? titleFromText(input.title) : titleFromText(body)) || 'Note',
    type,
    scope,
    project,
    summary: body.slice(0, 200),
    tags: input.tags,
    created: now,
    engramId,
    engramSource: 'manual',
    body,
  });
  return { path, existed: false };
}
