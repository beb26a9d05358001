import { describe, expect, it } from 'vitest';
import { formatLink, parseLinks } from '../../../src/core/curate/links';
import { LinkResolver } from '../../../src/core/curate/link-resolver';
import { moveRedirect, rewriteLinks, splitRedirect } from '../../../src/core/curate/link-rewrite';
import { outline } from '../../../src/core/curate/split';
import { pluginOwned } from '../../../src/core/curate/merge-candidates';

const note = `---
related: ["[[Alpha]]", "[[Beta|b]]"]
up: "[[Folder/Gamma#Intro]]"
---
See [[Alpha]], [[alpha|the alpha]], [[Alpha#Usage]], [[Alpha#^blk1]], ![[Alpha]], ![[Beta#Setup|x]].
Table | [[Alpha\\|aliased]] |
Self [[#Local heading]]. Markdown [text](Alpha.md) and [s](Folder/Gamma.md#Intro) and [web](https://x.org/a.md).
\`[[Not a link]]\` and
\`\`\`
[[Also not]]
\`\`\`
`;

describe('parseLinks', () => {
  const links = parseLinks(note);
  it('finds every form with its parts', () => {
    const got = links.map((l) => ({ f: l.form, e: l.embed, p: l.linkpath, h: l.heading, b: l.block, a: l.alias, fm: l.inFrontmatter }));
    expect(got).toEqual([
      { f: 'wiki', e: false, p: 'Alpha', h: undefined, b: undefined, a: undefined, fm: true },
      { f: 'wiki', e: false, p: 'Beta', h: undefined, b: undefined, a: 'b', fm: true },
      { f: 'wiki', e: false, p: 'Folder/Gamma', h: 'Intro', b: undefined, a: undefined, fm: true },
      { f: 'wiki', e: false, p: 'Alpha', h: undefined, b: undefined, a: undefined, fm: false },
      { f: 'wiki', e: false, p: 'alpha', h: undefined, b: undefined, a: 'the alpha', fm: false },
      { f: 'wiki', e: false, p: 'Alpha', h: 'Usage', b: undefined, a: undefined, fm: false },
      { f: 'wiki', e: false, p: 'Alpha', h: undefined, b: 'blk1', a: undefined, fm: false },
      { f: 'wiki', e: true, p: 'Alpha', h: undefined, b: undefined, a: undefined, fm: false },
      { f: 'wiki', e: true, p: 'Beta', h: 'Setup', b: undefined, a: 'x', fm: false },
      { f: 'wiki', e: false, p: 'Alpha', h: undefined, b: undefined, a: 'aliased', fm: false },
      { f: 'wiki', e: false, p: '', h: 'Local heading', b: undefined, a: undefined, fm: false },
      { f: 'markdown', e: false, p: 'Alpha.md', h: undefined, b: undefined, a: 'text', fm: false },
      { f: 'markdown', e: false, p: 'Folder/Gamma.md', h: 'Intro', b: undefined, a: 's', fm: false },
    ]);
  });
  it('formats each link back to its exact text', () => {
    for (const l of links) expect(formatLink(l)).toBe(note.slice(l.start, l.end));
  });
  it('returns nothing for a note without links, and survives unclosed brackets', () => {
    expect(parseLinks('plain text')).toEqual([]);
    expect(parseLinks('[[open and never closed\n]] [[ok]]').map((l) => l.linkpath)).toEqual(['ok']);
  });
});

describe('LinkResolver', () => {
  const r = new LinkResolver(['Alpha.md', 'Folder/Gamma.md', 'Other/Gamma.md', 'Deep/Down/Gamma.md', 'Folder/Sub/Delta.md', 'Ünïcode.md']);
  it('resolves by name, case-insensitively, preferring the linking note\'s folder, then the shortest path', () => {
    expect(r.resolve('alpha', 'x.md')).toBe('Alpha.md');
    expect(r.resolve('Alpha.md', 'x.md')).toBe('Alpha.md');
    expect(r.resolve('Gamma', 'Other/n.md')).toBe('Other/Gamma.md');
    // Same depth: the shorter path wins.
    expect(r.resolve('Gamma', 'n.md')).toBe('Other/Gamma.md');
    expect(r.resolve('Down/Gamma', 'n.md')).toBe('Deep/Down/Gamma.md');
    expect(r.resolve('Sub/Delta', 'n.md')).toBe('Folder/Sub/Delta.md');
    expect(r.resolve('../Alpha', 'Folder/n.md')).toBe('Alpha.md');
    expect(r.resolve('ünïcode'.normalize('NFD'), 'n.md')).toBe('Ünïcode.md');
    expect(r.resolve('Missing', 'n.md')).toBeNull();
    expect(r.resolve('', 'n.md')).toBe('n.md');
  });
  it('writes the shortest link path that still resolves', () => {
    expect(r.linkpathFor('Alpha.md', 'x.md')).toBe('Alpha');
    expect(r.linkpathFor('Folder/Gamma.md', 'x.md')).toBe('Folder/Gamma');
    expect(r.linkpathFor('Folder/Gamma.md', 'Folder/x.md')).toBe('Gamma');
    expect(r.linkpathFor('Other/Gamma.md', 'x.md')).toBe('Gamma');
  });
});

describe('rewriteLinks', () => {
  it('points every form at the merge target, keeping aliases, headings, blocks, embeds and escaped pipes', () => {
    const before = new LinkResolver(['Alpha.md', 'Beta.md', 'Folder/Gamma.md', 'Merged.md', 'n.md']);
    const after = before.with({ remove: ['Alpha.md'] });
    const r = rewriteLinks(note, 'n.md', 'n.md', { before, after, redirect: moveRedirect(new Map([['Alpha.md', 'Merged.md']])) });
    expect(r.text).toContain('related: ["[[Merged]]", "[[Beta|b]]"]');
    expect(r.text).toContain('See [[Merged|Alpha]], [[Merged|the alpha]], [[Merged#Usage|Alpha > Usage]], [[Merged#^blk1|Alpha > ^blk1]], ![[Merged]], ![[Beta#Setup|x]].');
    expect(r.text).toContain('| [[Merged\\|aliased]] |');
    expect(r.text).toContain('[text](Merged.md)');
    expect(r.text).toContain('`[[Not a link]]`');
    expect(r.edits).toHaveLength(8);
    // Nothing but the links changed.
    // Nothing but the link targets changed; what a reader sees (the display text) is the same.
    expect(r.text.replace(/\|Alpha( > [^\]]+)?\]\]/g, ']]').replace(/Merged/g, 'Alpha').replace('[[Alpha|the alpha]]', '[[alpha|the alpha]]')).toBe(note);
  });

  it('sends heading and block links of a split note to the part that now holds them', () => {
    const before = new LinkResolver(['Big.md', 'n.md']);
    const parts = [
      { path: 'Big - Setup.md', headings: ['Linux'], section: 'Setup', blocks: [] },
      { path: 'Big - Usage.md', headings: [], section: 'Usage', blocks: ['b7'] },
    ];
    const after = before.with({ add: parts.map((p) => p.path) });
    const text = '[[Big]] [[Big#Setup]] [[Big#Setup#Linux|on linux]] [[big#linux]] [[Big#^b7]] ![[Big#Usage]] [[Big#Intro]]';
    const r = rewriteLinks(text, 'n.md', 'n.md', { before, after, redirect: splitRedirect('Big.md', 'Big.md', parts) });
    expect(r.text).toBe('[[Big]] [[Big - Setup|Big > Setup]] [[Big - Setup#Linux|on linux]] [[Big - Setup#linux|big > linux]] [[Big - Usage#^b7|Big > ^b7]] ![[Big - Usage]] [[Big#Intro]]');
  });

  it('keeps a link that still resolves after a move (archive by the same name)', () => {
    const before = new LinkResolver(['Engram/Inbox/Old.md', 'n.md']);
    const after = before.with({ remove: ['Engram/Inbox/Old.md'], add: ['Engram/Archive/Old.md'] });
    const text = '[[Old]] and [[Engram/Inbox/Old|full]]';
    const r = rewriteLinks(text, 'n.md', 'n.md', { before, after, redirect: moveRedirect(new Map([['Engram/Inbox/Old.md', 'Engram/Archive/Old.md']])) });
    expect(r.text).toBe('[[Old]] and [[Engram/Archive/Old|full]]');
  });
});

describe('outline (split sections)', () => {
  it('uses the ## sections under a single # title, and ignores headings inside code', () => {
    const o = outline('---\na: 1\n---\n# Title\n\nIntro\n\n## One\n\nx\n\n```\n## not a heading\n```\n\n## Two\n\ny\n### Sub\n\nz\n');
    expect(o.level).toBe(2);
    expect(o.sections.map((s) => s.heading)).toEqual(['One', 'Two']);
    expect(o.sections[1].body).toBe('\ny\n### Sub\n\nz\n');
  });
});

describe('pluginOwned', () => {
  it('recognises Excalidraw drawings and Kanban boards, not ordinary notes', () => {
    expect(pluginOwned('Excalidraw/Drawing 1.excalidraw.md', '# Text Elements\n')).toBe(true);
    expect(pluginOwned('Board.md', '---\nkanban-plugin: basic\n---\n## Todo\n')).toBe(true);
    expect(pluginOwned('Note.md', '---\ntags: [x]\n---\nkanban-plugin: mentioned in the body\n')).toBe(false);
    expect(pluginOwned('Note.md', 'no frontmatter')).toBe(false);
  });
});
