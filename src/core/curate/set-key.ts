// Sets one scalar frontmatter key by splicing only its value's source range (the rest of the note, comments
// and formatting included, stays byte-for-byte). Used to move `review_after`.
// TODO: use the foundation's frontmatter editor once it lands in src/core/note/.
import { isMap, isScalar } from 'yaml';
import { parseNote } from '../note/frontmatter';

export function setScalarKey(text: string, key: string, value: string): string | null {
  const parsed = parseNote(text);
  if (parsed.problem || parsed.data === null) return null;
  const eol = parsed.eol;
  if (!parsed.block || !parsed.doc) {
    const bom = parsed.hasBom ? '\ufeff' : '';
    return `${bom}---${eol}${key}: ${value}${eol}---${eol}${parsed.body}`;
  }
  const base = parsed.block.yamlStart;
  const contents = parsed.doc.contents;
  if (isMap(contents)) {
    for (const pair of contents.items) {
      if (!isScalar(pair.key) || pair.key.value !== key) continue;
      if (isScalar(pair.value) && pair.value.range) {
        const [start, end] = pair.value.range;
        return text.slice(0, base + start) + value + text.slice(base + end);
      }
      return null;
    }
  }
  const insertAt = parsed.block.yamlEnd;
  const needsBreak = insertAt > base && text[insertAt - 1] !== '\n';
  return `${text.slice(0, insertAt)}${needsBreak ? eol : ''}${key}: ${value}${eol}${text.slice(insertAt)}`;
}
