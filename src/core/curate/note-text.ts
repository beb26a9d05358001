// Text of the notes curation writes: frontmatter in the note format of DESIGN.md, safe file names.
import { stringify } from 'yaml';

/** Frontmatter + body. Keys with undefined or empty-list values are left out. */
export function renderNote(data: Record<string, unknown>, body: string): string {
  const clean: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    clean[k] = v;
  }
  const yaml = Object.keys(clean).length ? stringify(clean, { lineWidth: 0 }) : '';
  const text = body.replace(/^\n+/, '').replace(/\s+$/, '');
  return `---\n${yaml}---\n${text}\n`;
}

/** A title as a file name: no characters that break wikilinks or file systems, bounded length. */
export function safeTitle(title: string): string {
  let t = title.normalize('NFC').replace(/[#^[\]|\\/:*?"<>\p{Cc}]/gu, ' ').replace(/\s+/g, ' ').trim();
  t = t.replace(/^\.+/, '').trim();
  if (/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(t)) t = `${t} note`;
  // Stay well under the 255-byte limit of most file systems.
  while (new TextEncoder().encode(t).length > 180) t = t.slice(0, -1);
  return t || 'Untitled';
}

/** A free path for a new note in `folder`, adding ` 2`, ` 3`… on a (case-insensitive) collision. */
export function freePath(folder: string, title: string, taken: (path: string) => boolean): string {
  const base = safeTitle(title);
  const dir = folder.replace(/\/+$/, '');
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base} ${n}`;
    const path = dir ? `${dir}/${name}.md` : `${name}.md`;
    if (!taken(path)) return path;
  }
}

export function wikilink(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  return `[[${name}]]`;
}

export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}
