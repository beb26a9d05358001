// When a note curation writes is dated: from the notes it is made from, never from the machine's clock. Two devices
// that apply the same proposal to the same synced notes (before either sees the other's result) then write the same
// bytes, which a sync tool takes as one change instead of leaving a conflict copy (docs/machines.md).
import { isoWithOffset } from '../note/write-beat';
import { parseNote } from '../note/frontmatter';
import type { NoteCatalog } from './catalog';

/** The frontmatter keys a note's times are read from (note/meta.ts), in the order it reads them. */
const UPDATED_KEYS = ['updated', 'cb_modified', 'modified', 'date_modified'];
const CREATED_KEYS = ['created', 'cb_created', 'date_created', 'date'];

export interface NotesTime {
  /** Epoch ms. */
  ms: number;
  /** As the note wrote it (its own offset kept), else as Engram writes times. */
  stamp: string;
}

function asWritten(data: Record<string, unknown>, keys: string[], ms: number): string | undefined {
  for (const k of keys) {
    const v = data[k];
    if (typeof v === 'string' && Date.parse(v) === ms) return v;
  }
  return undefined;
}

/**
 * The newest time among the notes: each note's `updated` (else `created`), the newest one's as written; undefined when
 * none carries a time. The same notes give the same answer on every device, in whatever order they are given.
 */
export function notesTime(catalog: NoteCatalog, paths: string[]): NotesTime | undefined {
  let best: { ms: number; path: string; updated: boolean } | undefined;
  for (const path of [...paths].sort()) {
    const meta = catalog.get(path)?.meta;
    const ms = meta?.updated ?? meta?.created;
    if (ms === undefined || (best && ms <= best.ms)) continue;
    best = { ms, path, updated: meta?.updated !== undefined };
  }
  if (!best) return undefined;
  const data = parseNote(catalog.get(best.path)!.text).data ?? {};
  return { ms: best.ms, stamp: asWritten(data, best.updated ? UPDATED_KEYS : CREATED_KEYS, best.ms) ?? isoWithOffset(best.ms) };
}
