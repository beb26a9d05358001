// The sync conflicts of a vault on disk, for `engram doctor` and `engram maintain`: copies a sync tool left beside a
// note (never listed as notes: src/core/note/conflict-copy.ts) and notes that still hold git's conflict markers.
import fs from 'node:fs';
import path from 'node:path';
import { conflictCopy, conflictDiff, hasConflictMarkers } from '../../src/core/note/conflict-copy.js';
import { TRASH_DIR } from '../../src/core/ports/vault-listing.js';

export interface VaultConflict {
  /** The copy's vault path, or the note with conflict markers. */
  path: string;
  /** The note it conflicts with (the same path for conflict markers). */
  original: string;
  tool: string;
  /** Lines only in the note (-) or only in the copy (+). */
  diff: string;
}

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Every conflict copy in the vault with a short diff against its note; with `markers`, also notes with conflict markers. */
export function vaultConflicts(root: string, opts: { markers?: boolean } = {}): VaultConflict[] {
  const out: VaultConflict[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return out;
  }
  for (const entry of entries.sort()) {
    const rel = entry.split(path.sep).join('/');
    if (!rel.toLowerCase().endsWith('.md') || rel.split('/').some((s) => s.startsWith('.')) || rel.startsWith(`${TRASH_DIR}/`)) continue;
    const copy = conflictCopy(rel);
    if (copy) {
      const text = read(path.join(root, rel));
      if (text !== null) out.push({ ...copy, diff: conflictDiff(read(path.join(root, copy.original)), text) });
    } else if (opts.markers) {
      const text = read(path.join(root, rel));
      if (text !== null && hasConflictMarkers(text)) out.push({ path: rel, original: rel, tool: 'git (conflict markers left in the note)', diff: '' });
    }
  }
  return out;
}

/** One line per conflict and its diff, for the terminal. */
export function describeConflicts(conflicts: VaultConflict[]): string[] {
  return conflicts.flatMap((c) =>
    c.path === c.original
      ? [`  ${c.path}: ${c.tool}; resolve them in the note`]
      : [`  ${c.path}: a copy of ${c.original} left by ${c.tool}; keep what you need in the note, then delete the copy`, c.diff],
  );
}
