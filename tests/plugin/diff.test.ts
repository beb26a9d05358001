// The restructure pane's line diff: exact (both texts rebuild from it), minimal on small cases, and paired rows.
import { describe, expect, it } from 'vitest';
import { diffHunks, diffLines, sideBySide } from '../../src/core/diff';
import { rng } from '../../src/core/rng';

const rebuild = (lines: ReturnType<typeof diffLines>, side: 'a' | 'b') =>
  lines.filter((l) => l.op === 'same' || l.op === (side === 'a' ? 'del' : 'add')).map((l) => l.text);

describe('diffLines', () => {
  it('marks a changed line as removed then added, keeping line numbers', () => {
    expect(diffLines('a\nb\nc\n', 'a\nB\nc\n')).toEqual([
      { op: 'same', text: 'a', a: 1, b: 1 },
      { op: 'del', text: 'b', a: 2 },
      { op: 'add', text: 'B', b: 2 },
      { op: 'same', text: 'c', a: 3, b: 3 },
    ]);
  });

  it('a new note is all added; an emptied one all removed', () => {
    expect(diffLines('', 'x\ny\n').map((l) => l.op)).toEqual(['add', 'add']);
    expect(diffLines('x\n', '').map((l) => l.op)).toEqual(['del']);
  });

  it('rebuilds both texts exactly, with the fewest changes on random edits', () => {
    const next = rng(7);
    for (let t = 0; t < 200; t++) {
      const a = Array.from({ length: Math.floor(next() * 30) }, () => 'abcde'[Math.floor(next() * 5)]);
      const b = a.filter(() => next() > 0.2).flatMap((x) => (next() > 0.8 ? [x, 'z'] : [x]));
      const lines = diffLines(a.join('\n'), b.join('\n'));
      expect(rebuild(lines, 'a')).toEqual(a);
      expect(rebuild(lines, 'b')).toEqual(b);
    }
    // One insertion in the middle is one added line, not a rewrite.
    expect(diffLines('a\nb\nc\nd', 'a\nb\nX\nc\nd').filter((l) => l.op !== 'same')).toEqual([{ op: 'add', text: 'X', b: 3 }]);
  });
});

describe('diffHunks and sideBySide', () => {
  it('keeps three lines of context and counts what it leaves out', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const d = diffHunks(before, after);
    expect(d).toMatchObject({ added: 1, removed: 1, skippedAfter: 7 });
    expect(d.hunks).toHaveLength(1);
    expect(d.hunks[0].skippedBefore).toBe(6);
    expect(d.hunks[0].lines.map((l) => l.text)).toEqual(['line 7', 'line 8', 'line 9', 'line 10', 'line ten', 'line 11', 'line 12', 'line 13']);
  });

  it('pairs removed lines with the added lines that replace them', () => {
    const rows = sideBySide(diffLines('a\nb\nc\nd', 'a\nB\nC\nX\nd'));
    expect(rows.map((r) => [r.left?.text ?? '', r.right?.text ?? ''])).toEqual([['a', 'a'], ['b', 'B'], ['c', 'C'], ['', 'X'], ['d', 'd']]);
  });
});
