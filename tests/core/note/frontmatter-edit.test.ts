// Frontmatter edits splice only the touched keys' lines: before/after tables, plus refusal of invalid notes.
import { describe, expect, it } from 'vitest';
import { editFrontmatter } from '../../../src/core/note/frontmatter-edit.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { isEngramError } from '../../../src/core/errors.js';
import { diffHunks } from '../../helpers/diff.js';

const NOTE = [
  '---',
  'title: Hello # greeting',
  'aliases: ["Hi", \'Hey\']',
  'tags:',
  '    - alpha',
  '    - beta',
  '# a comment line',
  'related: [[[Other note]], "[[Third]]"]',
  'summary: "A quoted: summary"',
  'empty:',
  'long: this is a rather long plain string that a serializer with a line width of eighty would happily fold somewhere',
  'map: {a: 1, b: 2}',
  'block: |',
  '  keep',
  '  me',
  '---',
  'Body with --- and key: value',
  '',
].join('\n');

function edit(text: string, set: Record<string, never> | Record<string, unknown>, remove?: string[]) {
  return editFrontmatter(text, { set: set as never, remove }).text;
}

describe('editing an existing key', () => {
  it.each([
    ['title', 'Bye', ['title: Bye # greeting\n']],
    ['summary', 'New "quoted"', ['summary: "New \\"quoted\\""\n']],
    ['aliases', ['Hi', 'Hey', 'Yo'], ['aliases: [Hi, Hey, Yo]\n']],
    ['tags', ['alpha', 'gamma'], ['    - gamma\n']],
    ['empty', 'filled', ['empty: filled\n']],
    ['long', 'short', ['long: short\n']],
  ] as const)('%s: changes only its own lines', (key, value, added) => {
    const out = edit(NOTE, { [key]: value });
    const hunks = diffHunks(NOTE, out);
    expect(hunks).toHaveLength(1);
    expect(hunks[0].added).toEqual(added);
    expect(parseNote(out).data?.[key]).toEqual(value);
    // Every changed line lies inside the key's own lines in the original.
    const lines = NOTE.split('\n');
    const first = lines.findIndex((l) => l.startsWith(`${key}:`));
    let last = first;
    while (lines[last + 1]?.startsWith('    - ')) last++;
    for (const h of hunks) {
      expect(h.line - 1).toBeGreaterThanOrEqual(first);
      expect(h.line - 1 + h.removed.length - 1).toBeLessThanOrEqual(last);
    }
  });

  it('keeps a flow list flow and a wikilink list valid', () => {
    const out = edit(NOTE, { related: ['[[Other note]]', '[[New]]'] });
    expect(out).toContain('related: ["[[Other note]]", "[[New]]"]\n');
    expect(parseNote(out).data?.related).toEqual(['[[Other note]]', '[[New]]']);
  });

  it('writes a multi-line value as a block scalar and keeps an inline comment on the key line', () => {
    const out = edit(NOTE, { title: 'two\nlines' });
    expect(out).toContain('title: |- # greeting\n  two\n  lines\n');
    expect(parseNote(out).data?.title).toBe('two\nlines');
  });

  it('does nothing when the value is already what is asked', () => {
    expect(editFrontmatter(NOTE, { set: { title: 'Hello' } })).toEqual({ text: NOTE, changed: false });
  });

  it('leaves long strings and flow maps it does not touch exactly as written', () => {
    const out = edit(NOTE, { title: 'x' });
    expect(out).toContain('map: {a: 1, b: 2}\n');
    expect(out).toContain('long: this is a rather long plain string that a serializer');
    expect(out).toContain('block: |\n  keep\n  me\n');
  });
});

describe('adding and removing keys', () => {
  it('appends a new key just before the closing ---', () => {
    const out = edit(NOTE, { engram_id: 'abc123', review_after: '2026-01-01' });
    const hunks = diffHunks(NOTE, out);
    expect(hunks).toEqual([{ line: 16, removed: [], added: ['engram_id: abc123\n', 'review_after: 2026-01-01\n'] }]);
    expect(parseNote(out).data?.review_after).toBe('2026-01-01');
  });

  it('adds a list as an indented block list', () => {
    expect(edit('---\na: 1\n---\n', { tags: ['x', 'y'] })).toBe('---\na: 1\ntags:\n  - x\n  - y\n---\n');
  });

  it('removes a key with all its lines, including comments inside its value', () => {
    const out = edit('---\na: 1\nb:\n  c: 1\n  # inner\nd: 2\n---\n', {}, ['b']);
    expect(out).toBe('---\na: 1\nd: 2\n---\n');
    expect(edit(NOTE, {}, ['missing'])).toBe(NOTE);
  });

  it('creates a frontmatter block when there is none, keeping BOM and CRLF', () => {
    expect(edit('Just a body\n', { type: 'insight' })).toBe('---\ntype: insight\n---\nJust a body\n');
    expect(edit('\uFEFFBody\r\nline', { a: 'b' })).toBe('\uFEFF---\r\na: b\r\n---\r\nBody\r\nline');
  });

  it('fills an empty block', () => {
    expect(edit('---\n---\nbody', { a: 1 })).toBe('---\na: 1\n---\nbody');
  });
});

describe('what must be preserved', () => {
  it('keeps a BOM, CRLF line endings and a missing final newline', () => {
    const text = '\uFEFF---\r\ntitle: Old\r\ntags: [a]\r\n---\r\nbody\r\nno final newline';
    const out = edit(text, { title: 'New', added: true });
    expect(out).toBe('\uFEFF---\r\ntitle: New\r\ntags: [a]\r\nadded: true\r\n---\r\nbody\r\nno final newline');
  });

  it('keeps quoted keys as written', () => {
    expect(edit('---\n"my key": 1\n---\n', { 'my key': 2 })).toBe('---\n"my key": 2\n---\n');
  });

  it('keeps the quoting style of a single-quoted value and of quoted list items', () => {
    expect(edit("---\nx: 'old'\n---\n", { x: 'new' })).toBe("---\nx: 'new'\n---\n");
    expect(edit('---\nup:\n  - "[[A]]"\n---\n', { up: ['[[A]]', 'B'] })).toBe('---\nup:\n  - "[[A]]"\n  - "B"\n---\n');
  });

  it('quotes what YAML would otherwise misread', () => {
    const out = edit('---\na: 1\n---\n', { b: '123', c: 'yes: no', d: '@handle', e: '{{date}}', f: '' });
    expect(parseNote(out).data).toEqual({ a: 1, b: '123', c: 'yes: no', d: '@handle', e: '{{date}}', f: '' });
  });
});

describe('edge cases', () => {
  it.each([
    ['a comment on the key line of a block list', '---\ntags: # why\n  - a\n  - b\nx: 1\n---\n', { tags: ['x'] }, '---\ntags: # why\n  - x\nx: 1\n---\n'],
    ['a folded scalar replaced by a plain one', '---\ntitle: >-\n  folded\n  text\nx: 1\n---\n', { title: 'x' }, '---\ntitle: x\nx: 1\n---\n'],
    ['a consistently indented map', '---\n  a: 1\n  b: 2\n---\n', { a: 5, c: 3 }, '---\n  a: 5\n  b: 2\n  c: 3\n---\n'],
    ['a multi-line plain scalar', '---\ndesc: line one\n  continues here\nx: 1\n---\n', { desc: 'x' }, '---\ndesc: x\nx: 1\n---\n'],
    ['a nested object', '---\nx: 1\n---\n', { obj: { a: 1, b: [1, 2] } }, '---\nx: 1\nobj:\n  a: 1\n  b:\n    - 1\n    - 2\n---\n'],
    ['a block holding only a comment', '---\n# just a comment\n---\nbody', { a: 1 }, '---\n# just a comment\na: 1\n---\nbody'],
    ['a block closed with ...', '---\nx: 1\n...\nbody', { a: 1 }, '---\nx: 1\na: 1\n...\nbody'],
    ['a list flush with its key', '---\ntags:\n- a\n- b\ny: 2\n---\n', { tags: ['a', 'b', 'c'] }, '---\ntags:\n- a\n- b\n- c\ny: 2\n---\n'],
    ['a flow list with a comment', '---\nx: [a, b] # c\n---\n', { x: ['a', 'b', 'c'] }, '---\nx: [a, b, c] # c\n---\n'],
    ['a list emptied before a comment line', '---\nx:\n  - a\n# trailing\n---\n', { x: [] }, '---\nx: []\n# trailing\n---\n'],
    ['keys that need quotes', '---\na: 1\n---\n', { 'new: key': 3, '#hash': 4 }, '---\na: 1\n"new: key": 3\n"#hash": 4\n---\n'],
    ['a closing fence at the end of the file', '---\nx: 1\n---', { y: 2 }, '---\nx: 1\ny: 2\n---'],
    ['a very long string (never folded)', '---\nx: 1\n---\n', { s: `${'a'.repeat(200)} b` }, `---\nx: 1\ns: ${'a'.repeat(200)} b\n---\n`],
  ])('%s', (_name, before, set, after) => {
    expect(editFrontmatter(before, { set: set as never }).text).toBe(after);
  });

  it('removes a key with its trailing comment', () => {
    expect(editFrontmatter('---\nx: 1 # c\ny: 2\n---\n', { remove: ['x'] }).text).toBe('---\ny: 2\n---\n');
  });
});

describe('invalid notes are never rewritten', () => {
  it.each([
    ['template', '---\ncreated: {{date}}\n---\n', 3 - 1],
    ['@handle', '---\nauthors:\n  - @handle\n---\n', 3],
    ['unclosed', '---\ntitle: x\nbody\n', 1],
    ['duplicate key', '---\na: 1\na: 2\n---\n', 3],
    ['bad indentation', '---\na: 1\n  b: 2\n---\n', 2],
  ])('%s: refused with the line', (_name, text, line) => {
    let err: unknown;
    try {
      editFrontmatter(text, { set: { x: 1 } }, 'Notes/a.md');
    } catch (e) {
      err = e;
    }
    expect(isEngramError(err, 'invalid-yaml')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^Notes/a\\.md:${line}: `));
  });

  it('refuses a frontmatter written as one flow map rather than reformatting it', () => {
    expect(() => editFrontmatter('---\n{a: 1}\n---\n', { set: { b: 2 } })).toThrow(/flow map/);
  });
});
