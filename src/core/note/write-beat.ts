// A beat as a note: DESIGN.md's note-format frontmatter (a permanent contract) in its documented key order, plus the
// body; and creating it in the vault under a file name that collides with nothing (case- and NFC/NFD-insensitive).
import { Document } from 'yaml';
import { EngramError, isEngramError } from '../errors.js';
import type { VaultPort } from '../ports.js';
import { vaultPath } from '../path.js';
import { uniqueNotePath } from './filename.js';
import type { EngramSource } from './meta.js';

export interface BeatNote {
  title: string;
  type: string;
  scope: 'project' | 'general';
  project?: string;
  summary: string;
  tags?: string[];
  /** Note titles (wikilinks are added) or ready `[[…]]` links. */
  related?: string[];
  /** Epoch ms. */
  created: number;
  updated?: number;
  /** `yyyy-mm-dd`: present = working memory. */
  reviewAfter?: string;
  forgetAfter?: string;
  confidence?: number;
  locked?: boolean;
  engramId: string;
  engramSource: EngramSource;
  engramSession?: string;
  engramAgent?: string;
  body: string;
}

/** ISO 8601 with the local offset, e.g. `2026-05-01T14:03:00+02:00` (what Obsidian's date & time property shows). */
export function isoWithOffset(ms: number, offsetMinutes = -new Date(ms).getTimezoneOffset()): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local.toISOString().slice(0, 19)}${off}`;
}

function wikilink(s: string): string {
  const t = s.trim();
  return /^\[\[.*\]\]$/.test(t) ? t : `[[${t}]]`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The frontmatter of a beat, keys in the order of DESIGN's table; absent optional keys are omitted. */
export function beatFrontmatter(b: BeatNote, offsetMinutes?: number): Record<string, string | number | boolean | string[]> {
  if (!b.title.trim()) throw new EngramError('usage', 'a beat needs a title');
  if (!b.type.trim()) throw new EngramError('usage', 'a beat needs a type');
  if (!b.engramId.trim()) throw new EngramError('usage', 'a beat needs an engram_id');
  if (b.confidence !== undefined && !(b.confidence >= 0 && b.confidence <= 1)) throw new EngramError('usage', `confidence must be between 0 and 1, got ${b.confidence}`);
  for (const [k, v] of [['review_after', b.reviewAfter], ['forget_after', b.forgetAfter]] as const) {
    if (v !== undefined && !DATE.test(v)) throw new EngramError('usage', `${k} must be a date yyyy-mm-dd, got ${v}`);
  }
  const fm: Record<string, string | number | boolean | string[]> = { type: b.type.trim(), scope: b.scope };
  if (b.project) fm.project = b.project;
  fm.summary = b.summary.replace(/\s+/g, ' ').trim();
  fm.tags = (b.tags ?? []).map((t) => t.replace(/^#/, '').trim()).filter(Boolean);
  fm.related = (b.related ?? []).filter((r) => r.trim()).map(wikilink);
  fm.created = isoWithOffset(b.created, offsetMinutes);
  fm.updated = isoWithOffset(b.updated ?? b.created, offsetMinutes);
  if (b.reviewAfter) fm.review_after = b.reviewAfter;
  if (b.forgetAfter) fm.forget_after = b.forgetAfter;
  if (b.confidence !== undefined) fm.confidence = Math.round(b.confidence * 100) / 100;
  if (b.locked) fm.locked = true;
  fm.engram_id = b.engramId;
  fm.engram_source = b.engramSource;
  if (b.engramSession) fm.engram_session = b.engramSession;
  if (b.engramAgent) fm.engram_agent = b.engramAgent;
  return fm;
}

/**
 * The text of a note Engram writes whole: frontmatter (keys in the order given, undefined ones left out), a blank line,
 * the body, one final newline. Every new note is written through this; beats build their keys in DESIGN's order.
 */
export function renderNoteText(frontmatter: Record<string, unknown>, body: string): string {
  const data = Object.fromEntries(Object.entries(frontmatter).filter(([, v]) => v !== undefined && v !== null));
  const yaml = Object.keys(data).length ? new Document(data).toString({ lineWidth: 0, flowCollectionPadding: false }) : '';
  const text = body.replace(/\r\n/g, '\n').replace(/^\n+/, '').replace(/\s+$/, '');
  return `---\n${yaml}---\n\n${text}\n`;
}

/** The full note text of a beat. */
export function renderBeatNote(b: BeatNote, offsetMinutes?: number): string {
  return renderNoteText(beatFrontmatter(b, offsetMinutes), b.body);
}

/**
 * Creates a note in `folder` named after `title`, adding a counter when the name is taken (also by a note that differs
 * only in case or Unicode form). Retries when another writer takes the name first. Returns the vault path. `known`:
 * the vault's paths when the caller already has them (extraction's catalog); listed otherwise.
 */
export async function createNoteUnique(vault: VaultPort, folder: string, title: string, text: string, known?: Iterable<string>): Promise<string> {
  const dir = folder === '' ? '' : vaultPath(folder);
  const taken = new Set(known ?? (await vault.list()).map((f) => f.path));
  for (let attempt = 0; attempt < 20; attempt++) {
    const p = uniqueNotePath(dir, title, taken);
    try {
      await vault.create(p, text);
      return p;
    } catch (e) {
      if (!isEngramError(e, 'conflict')) throw e;
      taken.add(p);
    }
  }
  throw new EngramError('conflict', `could not find a free file name for "${title}" in ${folder || 'the vault root'}`);
}

/** Renders a beat and files it in `folder`; returns the new note's vault path. */
export function writeBeatNote(vault: VaultPort, folder: string, beat: BeatNote, offsetMinutes?: number): Promise<string> {
  return createNoteUnique(vault, folder, beat.title, renderBeatNote(beat, offsetMinutes));
}
