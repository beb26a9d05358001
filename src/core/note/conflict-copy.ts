// Files a sync tool leaves when two machines changed one note before syncing: a second copy beside the note (Syncthing
// `Note.sync-conflict-20260310-120000-ABCDEFG.md`; Dropbox, Nextcloud and Obsidian Sync `Note (conflicted copy …).md`;
// Seafile `Note (SFConflict …).md`; Resilio Sync `Note.Conflict.md`; other tools' `Note (conflict).md`; git mergetool's
// `Note_LOCAL_1234.md`), or git's conflict markers inside the note. A copy is not a note of its own: it is kept out of
// recall and offered to the user to resolve. Names that people and Engram also give notes (iCloud Drive's `Note 2.md`,
// Google Drive's `Note (1).md`, OneDrive's `Note-<computer name>.md`) are copies only when the note they would copy
// exists and the two texts are near-identical (`sameNoteVersions`): `Chapter 2.md` beside a different `Chapter.md`
// stays a note.

const PATTERNS: Array<{ tool: string; re: RegExp }> = [
  { tool: 'Syncthing', re: /\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?$/ },
  { tool: 'a sync service', re: / ?\([^()]*conflicted copy[^()]*\)$/i },
  { tool: 'a sync service', re: / ?\((?:SF)?conflict(?: [^()]*)?\)$/i },
  { tool: 'git mergetool', re: /_(?:BASE|LOCAL|REMOTE|BACKUP)_\d+$/ },
  { tool: 'Resilio Sync', re: /\.Conflict\d*$/ },
];

/** Names a copy may have, and a note may too: a copy only beside a near-identical note. */
const MAYBE: Array<{ tool: string; re: RegExp }> = [
  { tool: 'iCloud Drive', re: / (?:[2-9]|[1-9]\d+)$/ },
  { tool: 'Google Drive', re: / ?\((?:[1-9]\d*)\)$/ },
  { tool: 'OneDrive', re: /-[^-]+(?:-\d+)?$/ },
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

/**
 * The note a path may be a sync tool's copy of, judged by its name alone (`Note 2.md`, `Note (1).md`,
 * `Note-LAPTOP.md`): a copy only when that note exists and `sameNoteVersions` says the texts are two versions of one note.
 */
export function possibleCopy(path: string): ConflictCopy | undefined {
  const m = /^(.*\/)?([^/]+)\.md$/i.exec(path);
  if (!m || conflictCopy(path)) return undefined;
  const [, dir = '', stem] = m;
  for (const { tool, re } of MAYBE) {
    const hit = re.exec(stem);
    if (hit && hit.index > 0) return { path, original: `${dir}${stem.slice(0, hit.index)}.md`, tool };
  }
  return undefined;
}

const ENGRAM_ID = /^engram_id:[ \t]*(\S.*?)[ \t]*$/m;

function contentLines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/**
 * Whether two texts are versions of one note (what a sync tool leaves when both machines edited it): identical, or
 * their common lines holding at least 60% of the longer one's text, or differing only in one stretch that is at most a
 * fifth of the longer text. Two notes that share a template's headings and little else are not, nor two notes with
 * different `engram_id`s.
 */
export function sameNoteVersions(a: string, b: string): boolean {
  if (a === b) return true;
  // Two notes Engram wrote for two beats (`Title 2.md` is how it names the second) are two notes: a sync copy keeps the id.
  const [idA, idB] = [ENGRAM_ID.exec(a)?.[1], ENGRAM_ID.exec(b)?.[1]];
  if (idA !== undefined && idB !== undefined && idA !== idB) return false;
  const [x, y] = [contentLines(a), contentLines(b)];
  const size = (ls: string[]) => ls.reduce((n, l) => n + l.length, 0);
  const inY = new Map<string, number>();
  for (const l of y) inY.set(l, (inY.get(l) ?? 0) + 1);
  let shared = 0;
  for (const l of x) {
    const n = inY.get(l) ?? 0;
    if (n > 0) {
      shared += l.length;
      inY.set(l, n - 1);
    }
  }
  const longer = Math.max(size(x), size(y));
  if (longer > 0 && shared >= 0.6 * longer) return true;
  const max = Math.max(a.length, b.length);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return max > 0 && prefix + suffix >= 0.8 * max;
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
