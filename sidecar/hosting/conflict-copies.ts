// The sync conflicts of a vault on disk, for `engram doctor` and `engram maintain`: copies a sync tool left beside a
// note (found as curation finds them: src/core/curate/conflicts.ts; never listed as notes) and notes that still hold
// git's conflict markers. `engram review` and the review pane resolve the copies.
import { findConflicts } from '../../src/core/curate/conflicts.js';
import { conflictDiff, hasConflictMarkers } from '../../src/core/note/conflict-copy.js';
import { NodeVault } from './node-vault.js';

export interface VaultConflict {
  /** The copy's vault path, or the note with conflict markers. */
  path: string;
  /** The note it conflicts with (the same path for conflict markers). */
  original: string;
  tool: string;
  /** Lines only in the note (-) or only in the copy (+). */
  diff: string;
}

/** Every conflict copy in the vault with a short diff against its note; with `markers`, also notes with conflict markers. */
export async function vaultConflicts(root: string, opts: { markers?: boolean } = {}): Promise<VaultConflict[]> {
  const vault = new NodeVault(root);
  let out: VaultConflict[];
  try {
    out = (await findConflicts(vault)).map((c) => ({ path: c.path, original: c.original, tool: c.tool, diff: conflictDiff(c.note, c.copy) }));
  } catch {
    // A vault folder that is gone or unreadable: doctor's vault check says so.
    return [];
  }
  if (opts.markers) {
    for (const f of await vault.list()) {
      const text = await vault.read(f.path).then((r) => r.text, () => null);
      if (text !== null && hasConflictMarkers(text)) out.push({ path: f.path, original: f.path, tool: 'git (conflict markers left in the note)', diff: '' });
    }
  }
  return out;
}

/** One line per conflict and its diff, for the terminal. */
export function describeConflicts(conflicts: VaultConflict[]): string[] {
  return conflicts.flatMap((c) =>
    c.path === c.original
      ? [`  ${c.path}: ${c.tool}; resolve them in the note`]
      : [`  ${c.path}: a copy of ${c.original} left by ${c.tool}; resolve it with \`engram review\` (keep mine, keep theirs or merge both)`, c.diff],
  );
}
