// Which files a vault lists, shared by every VaultPort so that all hosts see the same notes.

import type { VaultPath } from '../ports.js';
import { isConflictCopy } from '../note/conflict-copy.js';
export const TRASH_DIR = '.trash';

/**
 * Whether a vault path is a note the vault lists: `.md`, not in a hidden (dot) folder, the config folder or the trash,
 * and not a sync tool's conflict copy (note/conflict-copy.ts: kept out of recall and curation, listed by `engram doctor`).
 * Obsidian's config folder is a dot folder unless the user renamed it, so `configDir` is needed only then.
 */
export function isListedNote(path: VaultPath, configDir?: string): boolean {
  return inVaultTree(path, configDir) && !isConflictCopy(path);
}

/** Whether a vault path is a sync tool's conflict copy in the vault's tree (what `listConflictCopies` lists). */
export function isListedCopy(path: VaultPath, configDir?: string): boolean {
  return inVaultTree(path, configDir) && isConflictCopy(path);
}

function inVaultTree(path: VaultPath, configDir?: string): boolean {
  if (!path.toLowerCase().endsWith('.md')) return false;
  const segs = path.split('/');
  if ((configDir !== undefined && segs[0] === configDir) || segs[0] === TRASH_DIR) return false;
  // Obsidian ignores dot files and dot folders anywhere in the tree.
  return !segs.some((s) => s.startsWith('.'));
}
