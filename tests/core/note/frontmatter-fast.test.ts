// The fast reading of simple frontmatter (simpleFrontmatter) gives the YAML parser's data or steps aside.
import { describe, expect, it } from 'vitest';
import { parseNote, readNoteData, simpleFrontmatter } from '../../../src/core/note/frontmatter.js';

const slow = (yaml: string): unknown => parseNote(`---\n${yaml}\n---\nbody\n`).data;

describe('simpleFrontmatter', () => {
  it('reads key: value lines and key: over - items exactly as the parser does', () => {
    for (const yaml of [
      'tags:\n  - health\n  - sleep',
      'tags:\n- health',
      'status: In progress\nauthor: Jane Doe',
      'empty:\nnext: value',
      'a: Ünïcode wörds\nb: Sci-fi',
      '',
      'tags:\n  - one\n\n  - two',
      'trailing: spaces   \r\nother: x\r',
    ]) {
      const data = simpleFrontmatter(yaml);
      expect(data, yaml).toBeDefined();
      expect(data, yaml).toEqual(slow(yaml) ?? {});
    }
  });

  it('steps aside for anything with YAML meaning: numbers, booleans, quotes, links, comments, nesting, repeats', () => {
    for (const yaml of [
      'year: 1982',
      'done: true',
      'nothing: null',
      'title: "Quoted"',
      'cat: [[Movies]]',
      'tags: [a, b]',
      'note: C# language',
      'a: b # comment',
      'url: https://example.com',
      'nested:\n  key: value',
      'a: x\na: y',
      '__proto__: x',
      'list:\n  - 12',
      'list:\n  - a\n    - b',
      'key: value\n  - item',
      'multi: line one\n  continues here',
      'anchor: &a thing',
      '  indented: x',
    ]) expect(simpleFrontmatter(yaml), yaml).toBeUndefined();
  });

  it('readNoteData gives parseNote\'s data, body and problem, for simple, rich and broken blocks', () => {
    for (const text of ['---\ntags:\n  - a\n---\nBody [[x]].\n', '---\nyear: 1982\ncast: ["[[A]]"]\n---\nB\n', '---\na: [unclosed\n---\nB\n', 'no frontmatter\n', '---\nnever closed\n']) {
      const p = parseNote(text);
      expect(readNoteData(text), text).toEqual({ data: p.data, body: p.body, problem: p.problem, block: p.block });
    }
  });
});
