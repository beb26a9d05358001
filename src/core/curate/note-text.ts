// Text of the notes curation writes: frontmatter in the note format of DESIGN.md (file names: note/filename.ts).
import { renderNoteText } from '../note/write-beat';

/** A note curation writes whole, through the note layer's one writer; keys with empty-list values are left out too. */
export function renderNote(data: Record<string, unknown>, body: string): string {
  return renderNoteText(Object.fromEntries(Object.entries(data).filter(([, v]) => !(Array.isArray(v) && v.length === 0))), body);
}

export function wikilink(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  return `[[${name}]]`;
}

export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}
