// File names from note titles: safe for wikilinks and for every desktop file system, and unique in a folder even on
// case-insensitive file systems and across Unicode normalisation forms (NFC vs NFD), so a note never gets a twin.

/** Characters that break wikilinks (`# [ ] ^ |`) or file systems (`\ / : * ? " < >`). */
const FORBIDDEN = /[#[\]^|\\/:*?"<>]/g;
// C0 and C1 control characters, plus the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Most file systems allow 255 bytes per name; keep room for ` 99`, `.md` and sync tools' conflict suffixes. */
export const MAX_STEM_BYTES = 180;

const encoder = new TextEncoder();

export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

/** Cuts `s` to at most `max` UTF-8 bytes without splitting a code point (or a surrogate pair). */
export function truncateBytes(s: string, max: number): string {
  if (utf8Length(s) <= max) return s;
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const n = utf8Length(ch);
    if (bytes + n > max) break;
    bytes += n;
    out += ch;
  }
  // Don't leave a dangling combining mark or zero-width joiner at the cut.
  return out.replace(/(?:[\u0300-\u036f]|\u200d|\ufe0f)+$/u, '');
}

/**
 * A file name stem (no `.md`) for a title: NFC, forbidden and control characters replaced by spaces, whitespace collapsed,
 * no leading dots, no trailing dots or spaces (Windows), reserved Windows names suffixed, at most MAX_STEM_BYTES bytes.
 */
export function fileStemFromTitle(title: string, maxBytes = MAX_STEM_BYTES): string {
  let s = title.normalize('NFC').replace(CONTROL, ' ').replace(FORBIDDEN, ' ');
  s = s.replace(/\s+/g, ' ').trim();
  s = s.replace(/^[.\s]+/, '');
  s = truncateBytes(s, maxBytes);
  s = s.replace(/[.\s]+$/, '');
  if (s === '') s = 'Untitled';
  if (RESERVED.test(s)) s = `${s}_`;
  return s;
}

/** The key under which two names are the same file on macOS and Windows: case- and normalisation-insensitive. */
export function fileNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function occupiedBy(paths: Iterable<string>): (path: string) => boolean {
  const keys = new Set<string>();
  for (const p of paths) keys.add(fileNameKey(p));
  return (p) => keys.has(fileNameKey(p));
}

/**
 * A vault path `folder/stem.md` that none of `existing` (vault paths) already occupies, adding ` 1`, ` 2`, … as
 * Obsidian does. The comparison ignores case and Unicode normalisation; a caller that knows the vault through a lookup
 * (curation's link resolver, which folds the same way) passes it as `existing(path)`.
 */
export function uniqueNotePath(folder: string, title: string, existing: Iterable<string> | ((path: string) => boolean)): string {
  const prefix = folder === '' ? '' : `${folder.replace(/\/+$/, '')}/`;
  const isTaken = typeof existing === 'function' ? existing : occupiedBy(existing);
  const stem = fileStemFromTitle(title);
  let candidate = `${prefix}${stem}.md`;
  for (let n = 1; isTaken(candidate); n++) {
    const suffix = ` ${n}`;
    candidate = `${prefix}${fileStemFromTitle(stem, MAX_STEM_BYTES - suffix.length)}${suffix}.md`;
  }
  return candidate;
}

/** A folder segment (e.g. a project name) under the same rules as a file name. */
export function folderSegment(name: string): string {
  return fileStemFromTitle(name, 100);
}
