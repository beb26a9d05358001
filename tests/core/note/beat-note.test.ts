// Routing, writing a beat note in the note format, and the ENGRAM.md vocabulary.
import { describe, expect, it } from 'vitest';
import { routeFolder, logNotePath, DEFAULT_FOLDERS, foldersFromConfig } from '../../../src/core/note/route.js';
import { beatFrontmatter, isoWithOffset, renderBeatNote, writeBeatNote, type BeatNote } from '../../../src/core/note/write-beat.js';
import { loadVocabulary, parseVocabulary } from '../../../src/core/note/vocabulary.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { readNoteMeta } from '../../../src/core/note/meta.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { effectiveConfig } from '../../../src/core/config.js';

const beat: BeatNote = {
  title: 'Use pnpm: not npm',
  type: 'decision',
  scope: 'project',
  project: 'engram',
  summary: 'The repo uses pnpm workspaces.',
  tags: ['#tooling', 'pnpm'],
  related: ['Package managers', '[[Monorepo]]'],
  created: Date.UTC(2026, 4, 1, 12, 0, 0),
  confidence: 0.8,
  engramId: 'abcdef0123456789',
  engramSource: 'hook-extraction',
  engramSession: 'sess-1',
  engramAgent: 'claude-code',
  body: 'We chose pnpm.\n\nBecause workspaces.',
};

describe('routing', () => {
  it('sends working memory, project and general beats to their folders', () => {
    expect(routeFolder({ workingMemory: true, scope: 'project', project: 'x' })).toBe('Engram/Working memory');
    expect(routeFolder({ scope: 'project', project: 'my:app' })).toBe('Engram/Projects/my app');
    expect(routeFolder({ scope: 'general', project: 'x' })).toBe('Engram/Inbox');
    expect(routeFolder({ scope: 'project' })).toBe('Engram/Inbox');
  });
  it('uses configured folders', () => {
    const folders = foldersFromConfig(effectiveConfig({ version: 1, folders: { inbox: 'Mem/In' } }, {}));
    expect(routeFolder({ scope: 'general' }, folders)).toBe('Mem/In');
    expect(folders.workingMemory).toBe(DEFAULT_FOLDERS.workingMemory);
  });
  it('names the change log by device and month', () => {
    expect(logNotePath('laptop', new Date(2026, 0, 15).getTime())).toBe('Engram/Log/laptop 2026-01.md');
  });
});

describe('beat notes', () => {
  it('writes the note-format frontmatter in table order that reads back as the same beat', () => {
    const text = renderBeatNote(beat, 120);
    const parsed = parseNote(text);
    expect(parsed.problem).toBeNull();
    expect(Object.keys(parsed.data ?? {})).toEqual([
      'type', 'scope', 'project', 'summary', 'tags', 'related', 'created', 'updated', 'confidence', 'engram_id', 'engram_source', 'engram_session', 'engram_agent',
    ]);
    expect(parsed.data?.created).toBe('2026-05-01T14:00:00+02:00');
    expect(parsed.data?.related).toEqual(['[[Package managers]]', '[[Monorepo]]']);
    const meta = readNoteMeta('Engram/Projects/engram/Use pnpm not npm.md', parsed.data ?? {});
    expect(meta).toMatchObject({ type: 'decision', scope: 'project', project: 'engram', tags: ['tooling', 'pnpm'], confidence: 0.8, engramId: 'abcdef0123456789', created: beat.created });
    expect(text.endsWith('\n\nWe chose pnpm.\n\nBecause workspaces.\n')).toBe(true);
  });

  it('formats offsets either side of UTC', () => {
    expect(isoWithOffset(Date.UTC(2026, 0, 1, 0, 30), -330)).toBe('2025-12-31T19:00:00-05:30');
    expect(isoWithOffset(Date.UTC(2026, 0, 1, 0, 30), 0)).toBe('2026-01-01T00:30:00+00:00');
  });

  it('refuses beats that break the contract', () => {
    expect(() => beatFrontmatter({ ...beat, confidence: 1.5 })).toThrow(/confidence/);
    expect(() => beatFrontmatter({ ...beat, reviewAfter: 'next week' })).toThrow(/review_after/);
    expect(() => beatFrontmatter({ ...beat, engramId: '' })).toThrow(/engram_id/);
  });

  it('files a beat under a free name, never over an existing note', async () => {
    const vault = new MemoryVault({ files: { 'Engram/Inbox/Use pnpm not npm.md': 'mine' }, caseInsensitive: true });
    const p1 = await writeBeatNote(vault, 'Engram/Inbox', beat);
    const p2 = await writeBeatNote(vault, 'Engram/Inbox', { ...beat, title: 'USE PNPM NOT NPM' });
    expect(p1).toBe('Engram/Inbox/Use pnpm not npm 1.md');
    expect(p2).toBe('Engram/Inbox/USE PNPM NOT NPM 2.md');
    expect((await vault.read('Engram/Inbox/Use pnpm not npm.md')).text).toBe('mine');
  });
});

describe('ENGRAM.md vocabulary', () => {
  const text = [
    '---', 'cssclasses: x', '---', '# Engram', '', '## Types', '- decision: a choice made', '- **gotcha** — a trap', '* `pattern`', '1. Decision', 'not a list item',
    '', '## Engram preferences', 'Prefer short notes.', '', 'Never file secrets.', '', '## Other', '- ignored',
  ].join('\n');
  it('reads the types list and the preferences text', () => {
    const v = parseVocabulary(text);
    expect(v.source).toBe('ENGRAM.md');
    expect(v.types).toEqual([{ name: 'decision', description: 'a choice made' }, { name: 'gotcha', description: 'a trap' }, { name: 'pattern' }]);
    expect(v.preferences).toBe('Prefer short notes.\n\nNever file secrets.');
  });
  it('falls back to the default types', async () => {
    expect(parseVocabulary('# nothing here').types.map((t) => t.name)).toEqual(['decision', 'correction', 'insight', 'problem', 'failed-approach', 'reference']);
    expect((await loadVocabulary(new MemoryVault())).source).toBe('defaults');
    expect((await loadVocabulary(new MemoryVault({ files: { 'ENGRAM.md': text } }))).types).toHaveLength(3);
  });
});
