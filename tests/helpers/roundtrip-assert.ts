// An independent check of a round-trip edit (it does not reuse the editor's own verification): the body is
// byte-identical, every changed frontmatter line belongs to the edited or the added key, and the data reads back
// as the original with exactly those two keys changed.
import { expect } from 'vitest';
import { parseNote } from '../../src/core/note/frontmatter.js';
import { diffHunks } from './diff.js';

function bodyStart(text: string): number {
  const note = parseNote(text);
  if (note.block) return note.block.bodyStart;
  return text.startsWith('\uFEFF') ? 1 : 0;
}

/** Lines a key may own: its own `key:` line, and indented or list-item continuation lines. */
function ownedBy(line: string, keys: string[]): boolean {
  const l = line.replace(/^\uFEFF/, '');
  if (/^[ \t]/.test(l) || l.startsWith('- ') || l === '-\n' || l.startsWith('---')) return true;
  return keys.some((k) => l.startsWith(`${k}:`) || l.startsWith(`"${k}":`) || l.startsWith(`'${k}':`));
}

export function assertEditStaysLocal(where: string, before: string, after: string, editedKey: string | null, addedKey: string): void {
  const b = bodyStart(before);
  const body = before.slice(b);
  expect(after.endsWith(body), `${where}: body changed`).toBe(true);
  expect(after.startsWith('\uFEFF'), `${where}: BOM`).toBe(before.startsWith('\uFEFF'));
  const head = before.slice(0, b);
  const newHead = after.slice(0, after.length - body.length);
  const keys = editedKey ? [editedKey, addedKey] : [addedKey];
  for (const h of diffHunks(head, newHead)) {
    for (const line of [...h.removed, ...h.added]) expect(ownedBy(line, keys), `${where}: line ${h.line} ${JSON.stringify(line)} is not part of ${keys.join(' or ')}`).toBe(true);
  }
  const oldData = parseNote(before).data ?? {};
  const newData = parseNote(after).data ?? {};
  const rest = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => !keys.includes(k)));
  expect(rest(newData), `${where}: other keys changed`).toEqual(rest(oldData));
  expect(newData[addedKey], `${where}: added key`).toBe('ok');
  if (editedKey) expect(newData[editedKey], `${where}: edited key unchanged`).not.toEqual(oldData[editedKey]);
}
