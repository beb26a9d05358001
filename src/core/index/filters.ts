// Evaluates SearchFilters against indexed notes into an allow-list (one byte per note slot), shared by BM25,
// vectors and link expansion so every path honours the same filters.
import type { SearchFilters } from './types.js';
import type { IndexedNote } from './text-index.js';

export function hasFilters(f: SearchFilters): boolean {
  return Boolean(
    f.types?.length || f.scope || f.projects?.length || f.durability || f.folders?.length || f.tags?.length || f.since !== undefined || f.until !== undefined,
  );
}

const lower = (xs: string[] | undefined): string[] | undefined => xs?.map((x) => x.trim().toLowerCase().replace(/^#/, '')).filter(Boolean);

export function makeMatcher(f: SearchFilters): (n: IndexedNote) => boolean {
  const types = lower(f.types);
  const projects = lower(f.projects);
  const tags = lower(f.tags);
  const folders = f.folders?.map((x) => x.replace(/^\/+|\/+$/g, '').toLowerCase());
  const excluded = f.excludeFolders?.map((x) => x.replace(/^\/+|\/+$/g, '').toLowerCase()).filter(Boolean);
  return (n) => {
    if (types?.length && !types.includes((n.type ?? '').toLowerCase())) return false;
    if (f.scope && n.scope !== f.scope) return false;
    if (projects?.length && !projects.includes((n.project ?? '').toLowerCase()) && !(f.generalToo && (!n.project || n.scope === 'general'))) return false;
    if (excluded?.length) {
      const folder = n.folder.toLowerCase();
      if (excluded.some((x) => folder === x || folder.startsWith(`${x}/`))) return false;
    }
    if (f.durability && (f.durability === 'working') !== n.working) return false;
    if (folders?.length) {
      const folder = n.folder.toLowerCase();
      if (!folders.some((x) => x === '' || folder === x || folder.startsWith(`${x}/`))) return false;
    }
    // A tag filter matches the tag itself and its nested tags (`project` matches `project/engram`).
    if (tags?.length && !n.tags.some((t) => tags.some((x) => t.toLowerCase() === x || t.toLowerCase().startsWith(`${x}/`)))) return false;
    if (f.since !== undefined && n.time < f.since) return false;
    if (f.until !== undefined && n.time > f.until) return false;
    return true;
  };
}

export function allowList(notes: (IndexedNote | null)[], f: SearchFilters): Uint8Array | null {
  if (!hasFilters(f) && !f.excludeFolders?.length) return null;
  const match = makeMatcher(f);
  const out = new Uint8Array(notes.length);
  for (let i = 0; i < notes.length; i++) {
    const n = notes[i];
    if (n && match(n)) out[i] = 1;
  }
  return out;
}

/** A stable key of the filter fields (for caching an allow-list). */
export function filterKey(f: SearchFilters): string {
  return JSON.stringify([f.types, f.scope, f.projects, f.durability, f.folders, f.tags, f.since, f.until, f.excludeFolders, f.generalToo]);
}

/** A range read from a time phrase of a question ("in September 2023"), epoch ms, both ends inclusive. */
export interface PhraseRange {
  since?: number;
  until?: number;
}

export function inRange(n: IndexedNote, r: PhraseRange): boolean {
  const t = n.dated ?? n.time;
  return (r.since === undefined || t >= r.since) && (r.until === undefined || t <= r.until);
}

/**
 * Whether a note's date is only its file's: no date key in its frontmatter (created, updated, date) or name, so its
 * time is when it was last saved, synced or copied, which says little of when what it tells happened. Another date
 * property (`dated`: `last: 2023-09-01`) ranks such a note up for a phrase it falls within, and never leaves it out.
 */
export function fileDated(n: IndexedNote): boolean {
  return n.time === n.mtime;
}

/**
 * The allow-list of a time phrase found in a question, on top of `base` (the explicit filters', null for every note):
 * a note whose own date is outside the range is left out; a note dated only by its file stays, ranked on its words.
 * Explicit `since`/`until` filters are in `base` and exclude by any date.
 */
export function phraseAllowList(notes: (IndexedNote | null)[], base: Uint8Array | null, r: PhraseRange): Uint8Array {
  const out = new Uint8Array(notes.length);
  for (let i = 0; i < notes.length; i++) {
    const n = notes[i];
    if (n && (base === null || base[i] === 1) && (fileDated(n) || inRange(n, r))) out[i] = 1;
  }
  return out;
}
