// Text of the notes curation writes: frontmatter in the note format of DESIGN.md, safe file names.
import { stringify } from 'yaml';
import { fileStemFromTitle, MAX_STEM_BYTES } from '../note/filename';

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

/** A title as a file name stem (the foundation's rules: forbidden characters, reserved names, byte length). */
export function safeTitle(title: string): string {
  return fileStemFromTitle(title);
}

/** A free path for a new note in `folder`, adding ` 1`, ` 2`… (as Obsidian does) on a case-insensitive collision. */
export function freePath(folder: string, title: string, taken: (path: string) => boolean): string {
  const base = fileStemFromTitle(title);
  const dir = folder.replace(/\/+$/, '');
  for (let n = 0; ; n++) {
    const suffix = n === 0 ? '' : ` ${n}`;
    const name = n === 0 ? base : `${fileStemFromTitle(base, MAX_STEM_BYTES - suffix.length)}${suffix}`;
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
