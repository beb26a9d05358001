// The vault's Engram log: one note per device and month (`Engram/Log/<device> <yyyy-mm>.md`), so that sync
// tools never see two devices append to the same file. Every applied change adds one entry.
import { isoWithOffset } from '../note/write-beat';
import { isEngramError } from '../errors';
import type { VaultPort } from '../ports';
import { DEFAULT_FOLDERS, logNotePath } from '../note/route';

export interface LogEntry {
  /** Epoch ms. */
  at: number;
  /** Who applied it: `cli`, `mcp`, `plugin`. */
  actor: string;
  /** What: `review promote`, `restructure merge`, `forget`… */
  action: string;
  /** Proposal id, when the change came from one. */
  proposal?: string;
  /** Notes written (new homes). */
  wrote: string[];
  /** Notes the change was made from (removed, moved or changed). */
  from: string[];
  /** Where removed notes went. */
  trashed: string[];
  moved: Array<[string, string]>;
  relinked: number;
  note?: string;
}

export function logPath(folder: string, device: string, at: number): string {
  return logNotePath(device, at, { ...DEFAULT_FOLDERS, log: folder });
}

function name(path: string): string {
  return path.replace(/\.md$/i, '');
}

/** One Markdown list item. Removed notes are written as code, not links, so the log never keeps them "linked". */
export function formatEntry(e: LogEntry): string {
  const parts = [`- ${isoWithOffset(e.at)} · ${e.actor} · ${e.action}`];
  if (e.proposal) parts.push(`proposal \`${e.proposal}\``);
  if (e.wrote.length) parts.push(`wrote ${e.wrote.map((p) => `[[${name(p)}]]`).join(', ')}`);
  if (e.from.length) parts.push(`from ${e.from.map((p) => `\`${p}\``).join(', ')}`);
  if (e.trashed.length) parts.push(`to trash ${e.trashed.map((p) => `\`${p}\``).join(', ')}`);
  for (const [a, b] of e.moved) parts.push(`moved \`${a}\` → \`${b}\``);
  if (e.relinked) parts.push(`links rewritten in ${e.relinked} note${e.relinked === 1 ? '' : 's'}`);
  if (e.note) parts.push(e.note);
  return parts.join(' · ');
}

/** The first line of every log note: how curation knows a log (in any folder, a synced copy included) and never relinks it. */
export const LOG_HEADING = '# Engram log: ';

export function isChangeLog(text: string): boolean {
  return text.startsWith(LOG_HEADING);
}

/**
 * Appends an entry, creating the month's note when needed, but does nothing when the exact line is already there (a
 * re-run after a crash logs once). A true append (the vault port's `append`, never read-then-write): entries written
 * at once by several processes all land.
 */
export async function appendLogOnce(vault: VaultPort, folder: string, device: string, entry: LogEntry): Promise<string> {
  const path = logPath(folder, device, entry.at);
  const line = formatEntry(entry);
  let current: string | null = null;
  try {
    current = (await vault.read(path)).text;
  } catch (e) {
    if (!isEngramError(e, 'not-found')) throw e;
  }
  if (current !== null && current.split(/\r?\n/).includes(line)) return path;
  if (current === null) {
    const title = path.slice(path.lastIndexOf('/') + 1, -3);
    try {
      await vault.create(path, `${LOG_HEADING}${title}\n\nChanges Engram made to this vault on device ${device}. Removed notes are in the vault's trash.\n\n${line}\n`);
      return path;
    } catch (e) {
      // Someone else made the month's note first: append to theirs.
      if (!isEngramError(e, 'conflict')) throw e;
    }
  }
  // A log whose last line has no end (edited by hand, or cut short by a crash) gets one first, so lines never join.
  const sep = current !== null && current !== '' && !current.endsWith('\n') ? '\n' : '';
  await vault.append(path, `${sep}${line}\n`);
  return path;
}
