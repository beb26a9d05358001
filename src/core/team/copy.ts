// A team note copied into a person's vault (docs/team.md "Recall"): a new note in the inbox folder, never over one,
// saying whose it is and where it came from. It is marked outside text (engram_trust: outside): a teammate wrote it,
// so hooks do not inject it as the user's own words and it cannot be promoted back as theirs; the user raises it with
// `engram_trust: user` once they make it their own.
import { EngramError } from '../errors.js';
import { uniqueNotePath } from '../note/filename.js';
import { renderNoteText } from '../note/write-beat.js';
import type { VaultPort } from '../ports.js';
import type { TeamNote } from './store.js';

/** Copies `note` into `folder`; returns the vault path written. */
export async function copyTeamNote(vault: Pick<VaultPort, 'exists' | 'create'>, folder: string, note: TeamNote, now: Date): Promise<string> {
  const fm = note.frontmatter;
  const text = renderNoteText(
    {
      type: typeof fm.type === 'string' ? fm.type : undefined,
      project: note.project || undefined,
      tags: Array.isArray(fm.tags) ? fm.tags.filter((t) => typeof t === 'string') : undefined,
      engram_trust: 'outside',
      engram_team: { team: note.team, note: note.id, author: note.author, promoted: note.promotedAt.slice(0, 10), copied: now.toISOString().slice(0, 10) },
    },
    note.body,
  );
  // Taken paths are asked of the vault one at a time (a title rarely repeats more than a few times).
  const taken = new Set<string>();
  let path = uniqueNotePath(folder, note.title, taken);
  while (await vault.exists(path)) {
    taken.add(path);
    path = uniqueNotePath(folder, note.title, taken);
    if (taken.size > 100) throw new EngramError('conflict', `no free file name for "${note.title}" in ${folder}`);
  }
  await vault.create(path, text);
  return path;
}
