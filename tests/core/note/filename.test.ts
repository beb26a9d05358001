// File names from titles: safe characters, reserved names, byte limits, normalisation, collisions without twins.
import { describe, expect, it } from 'vitest';
import { fileStemFromTitle, MAX_STEM_BYTES, truncateBytes, uniqueNotePath, utf8Length, folderSegment } from '../../../src/core/note/filename.js';

describe('fileStemFromTitle', () => {
  it.each([
    ['Use pnpm, not npm', 'Use pnpm, not npm'],
    ['A/B: testing? "yes" <no> | maybe*', 'A B testing yes no maybe'],
    ['#tag [[link]] ^block', 'tag link block'],
    ['back\\slash', 'back slash'],
    ['...hidden', 'hidden'],
    ['. .leading', 'leading'],
    ['trailing dots...', 'trailing dots'],
    ['tab\tand\nnewline\u0000nul\u0085', 'tab and newline nul'],
    ['   ', 'Untitled'],
    ['###', 'Untitled'],
    ['CON', 'CON_'],
    ['nul.txt', 'nul.txt_'],
    ['Com1', 'Com1_'],
    ['LPT9', 'LPT9_'],
    ['Console', 'Console'],
  ])('%j → %j', (title, stem) => {
    expect(fileStemFromTitle(title)).toBe(stem);
  });

  it('normalises to NFC', () => {
    expect(fileStemFromTitle('Cafe\u0301')).toBe('Caf\u00e9');
  });

  it('keeps names within the byte limit without splitting characters', () => {
    for (const ch of ['a', 'é', '日', '🧠']) {
      const stem = fileStemFromTitle(ch.repeat(300));
      expect(utf8Length(stem)).toBeLessThanOrEqual(MAX_STEM_BYTES);
      expect(stem).toBe(ch.repeat(stem.length / ch.length));
      expect(utf8Length(`${stem} 99.md`)).toBeLessThan(255);
    }
    expect(truncateBytes('ab🧠', 5)).toBe('ab');
    expect(truncateBytes('e\u0301\u0301x', 2)).toBe('e');
  });

  it('makes folder segments the same way', () => {
    expect(folderSegment('my/project:x')).toBe('my project x');
  });
});

describe('uniqueNotePath', () => {
  it('uses the title when free, else a counter like Obsidian', () => {
    expect(uniqueNotePath('Engram/Inbox', 'Idea', [])).toBe('Engram/Inbox/Idea.md');
    expect(uniqueNotePath('Engram/Inbox', 'Idea', ['Engram/Inbox/Idea.md'])).toBe('Engram/Inbox/Idea 1.md');
    expect(uniqueNotePath('Engram/Inbox', 'Idea', ['Engram/Inbox/Idea.md', 'Engram/Inbox/Idea 1.md'])).toBe('Engram/Inbox/Idea 2.md');
    expect(uniqueNotePath('', 'Idea', ['Idea.md'])).toBe('Idea 1.md');
  });

  it('does not create twins that differ only in case or Unicode form', () => {
    expect(uniqueNotePath('A', 'idea', ['A/IDEA.md'])).toBe('A/idea 1.md');
    expect(uniqueNotePath('A', 'Café', ['A/Cafe\u0301.md'])).toBe('A/Café 1.md');
    expect(uniqueNotePath('a', 'Idea', ['A/Idea.md'])).toBe('a/Idea 1.md');
  });

  it('ignores notes of the same name in other folders', () => {
    expect(uniqueNotePath('B', 'Idea', ['A/Idea.md'])).toBe('B/Idea.md');
  });

  it('keeps the counter within the byte limit', () => {
    const title = 'x'.repeat(400);
    const first = uniqueNotePath('F', title, []);
    const second = uniqueNotePath('F', title, [first]);
    expect(second.endsWith(' 1.md')).toBe(true);
    expect(utf8Length(second.slice(2, -3))).toBeLessThanOrEqual(MAX_STEM_BYTES);
  });
});
