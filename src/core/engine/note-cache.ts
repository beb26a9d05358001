// What the engine keeps across a restart in the host's state store: which notes each session was given
// (injected.json: a restarted host never injects a note twice) and each note's listing, metadata and terms
// (notes.json: a restart reads only the notes that changed).
import { readFormat, upgradeFormat } from '../format-version.js';
import { JSON_ELEMENT_SEPARATOR, parseJsonSteps } from '../json-steps.js';
import type { StateStore } from '../extract/state-store.js';
import type { NoteMeta } from '../note/meta.js';
import type { IndexedTerms } from '../recall/term-stats.js';
import type { TimeSlicer } from '../time-slice.js';

const INJECTED_FORMAT = { name: 'injected.json', current: 1, field: 'format' as const };
// 2: terms cut by script and stemmed per language (index/language.ts): a cache of older terms is dropped and its notes read again.
// 3: metadata reads `inject: false` (NoteMeta.noInject): an older cache is dropped and its notes read again.
// 4: metadata reads `engram_team.note` (NoteMeta.teamNote), and terms are read from the body as the index searches it
// (no drawing scene data, no block ids): an older cache is dropped and its notes read again.
const NOTES_FORMAT = {
  name: 'notes.json',
  current: 4,
  field: 'format' as const,
  migrations: { 1: () => ({ terms: [], notes: [] }), 2: () => ({ terms: [], notes: [] }), 3: () => ({ terms: [], notes: [] }) },
};

/** A note as the engine last read it: its listing, metadata and terms (indices into the cache's term list). */
type CachedNote = [path: string, mtime: number, size: number, meta: Omit<NoteMeta, 'path'>, terms: number[]];

/** A note of a previous run's cache, used at start when its listing is unchanged (its terms as indices into the cache's one term list). */
export interface CachedEntry extends IndexedTerms {
  mtime: number;
  size: number;
  meta: NoteMeta;
}

/** Where the engine keeps its state: the host's store, under `dir` (the daemon: vaults/<key>). */
export interface PersistPlace {
  store: StateStore;
  dir: string;
}

/** The sessions' injected notes as saved (the 500 most recent sessions). */
export function encodeInjected(injected: Map<string, Set<string>>): string {
  const sessions = Object.fromEntries([...injected.entries()].slice(-500).map(([k, v]) => [k, [...v]]));
  return JSON.stringify({ format: INJECTED_FORMAT.current, sessions });
}

/** The sessions' injected notes as a previous run saved them; throws when the file is damaged or newer. */
export async function restoreInjected(place: PersistPlace): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const saved = readFormat(INJECTED_FORMAT, await place.store.read(`${place.dir}/injected.json`));
  const sessions = (saved?.data.sessions ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(sessions)) if (Array.isArray(v)) out.set(k, new Set(v.filter((x): x is string => typeof x === 'string')));
  return out;
}

/**
 * Every note's listing, metadata and terms, with the terms written once (indices into one list). The JSON of
 * `{ format, terms, notes }`, a newline after each note (parseJsonSteps cuts there), built a note at a time so the host
 * gets turns (megabytes for a large vault).
 */
export async function encodeNotes(
  metas: Map<string, NoteMeta>,
  listing: Map<string, { mtime: number; size: number }>,
  termsOf: (path: string) => string[] | undefined,
  slicer: TimeSlicer,
): Promise<string> {
  const ids = new Map<string, number>();
  const notes: string[] = [];
  for (const [path, m] of metas) {
    const seen = listing.get(path);
    const terms = termsOf(path);
    if (!seen || !terms) continue;
    const { path: _p, ...meta } = m;
    const note: CachedNote = [path, seen.mtime, seen.size, meta, terms.map((t) => ids.get(t) ?? (ids.set(t, ids.size), ids.size - 1))];
    notes.push(JSON.stringify(note));
    if (slicer.due()) await slicer.yield();
  }
  return `{"format":${JSON.stringify(NOTES_FORMAT.current)},"terms":${JSON.stringify([...ids.keys()])},"notes":[${notes.join(JSON_ELEMENT_SEPARATOR)}]}`;
}

/** The notes as a previous run saved them; throws when the file is damaged or newer (every note is read again then). */
export async function restoreNotes(place: PersistPlace, slicer: TimeSlicer): Promise<Map<string, CachedEntry>> {
  const out = new Map<string, CachedEntry>();
  const text = await place.store.read(`${place.dir}/notes.json`);
  // Megabytes of JSON for a large vault: parsed in slices; text that is not JSON gets readFormat's own message.
  const parsed = text?.trim() ? await slicer.run(parseJsonSteps(text, 'notes')).catch(() => undefined) : undefined;
  const saved = parsed === undefined ? readFormat(NOTES_FORMAT, text) : upgradeFormat(NOTES_FORMAT, parsed);
  const terms = (saved?.data.terms ?? []) as string[];
  for (const [path, mtime, size, meta, ids] of (saved?.data.notes ?? []) as CachedNote[]) {
    // Its terms are listed from the indices when first asked for (TermStats.termsOf): checked here, as that did.
    if (!Array.isArray(ids) || typeof meta !== 'object' || meta === null) throw new Error(`notes.json: the entry of ${String(path)} is unreadable`);
    // The parsed metadata is this note's alone: given its path in place (the same keys, in the same order, as a copy).
    (meta as NoteMeta).path = path;
    out.set(path, { mtime, size, meta: meta as NoteMeta, ids, table: terms });
    if (slicer.due()) await slicer.yield();
  }
  return out;
}
