// Files a sync tool leaves when two machines changed one note before syncing: a second copy beside the note (Syncthing
// `Note.sync-conflict-20260310-120000-ABCDEFG.md`; Dropbox, Nextcloud and Obsidian Sync `Note (conflicted copy …).md`;
// Seafile `Note (SFConflict …).md`; other tools' `Note (conflict).md`; git mergetool's `Note_LOCAL_1234.md`), or git's
// conflict markers inside the note. A copy is not a note of its own: it is kept out of recall and offered to the user
// to resolve. Ambiguous names (iCloud's and Google Drive's `Note 2.md`, `Note (1).md`) are not taken for copies: Engram
// itself and people name notes that way.

const PATTERNS: Array<{ tool: string; re: RegExp }> = [
  { tool: 'Syncthing', re: /\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?$/ },
  { tool: 'a sync service', re: / ?\([^()]*conflicted copy[^()]*\)$/i },
  { tool: 'a sync service', re: / ?\((?:SF)?conflict(?: [^()]*)?\)$/i },
  { tool: 'git mergetool', re: /_(?:BASE|LOCAL|REMOTE|BACKUP)_\d+$/ },
];

export interface ConflictCopy {
  /** The copy's vault path. */
  path: string;
  /** The note it is a copy of (the path with the tool's suffix taken off; it may be gone). */
  original: string;
  tool: string;
}

/** The conflict copy a vault path is, or undefined for an ordinary note. */
export function conflictCopy(path: string): ConflictCopy | undefined {
  const m = /^(.*\/)?([^/]+)\.md$/i.exec(path);
  if (!m) return undefined;
  const [, dir = '', stem] = m;
  for (const { tool, re } of PATTERNS) {
    const hit = re.exec(stem);
    if (hit && hit.index > 0) return { path, original: `${dir}${stem.slice(0, hit.index)}.md`, tool };
  }
  return undefined;
}

export function isConflictCopy(path: string): boolean {
  return conflictCopy(path) !== undefined;
}

/** Whether a note still holds git's conflict markers (a merge left unresolved). */
export function hasConflictMarkers(text: string): boolean {
  return /^<{7}(?: .*)?$/m.test(text) && /^={7}$/m.test(text) && /^>{7}(?: .*)?$/m.test(text);
}

/** A short line diff of a copy against its note: the lines only in one or the other (at most `max` of each). */
export function conflictDiff(original: string | null, copy: string, max = 8): string {
  if (original === null) return '  (the note itself is gone: the copy is the only version)';
  const a = original.split(/\r?\n/);
  const b = copy.split(/\r?\n/);
  const inA = new Set(a);
  const inB = new Set(b);
  const onlyNote = a.filter((l) => !inB.has(l) && l.trim());
  const onlyCopy = b.filter((l) => !inA.has(l) && l.trim());
  if (!onlyNote.length && !onlyCopy.length) return '  (same lines as the note: the copy can go)';
  const show = (sign: string, lines: string[]) => [...lines.slice(0, max).map((l) => `  ${sign} ${l}`), ...(lines.length > max ? [`  ${sign} … ${lines.length - max} more`] : [])];
  return [...show('-', onlyNote), ...show('+', onlyCopy)].join('\n');
}
