// Engram's .base views: valid YAML scoped to the Engram folder outside the archive, reading only flat properties;
// and the Bases core plugin found in either form of core-plugins.json.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { basesPlugin, engramBases } from '../../../src/core/note/bases.js';

describe('engram .base views', () => {
  const views = engramBases({ root: 'Engram', working: 'Engram/Working memory', archive: 'Engram/Archive' }, 60);

  it('writes the four views, each a table over Engram\'s notes outside the archive', () => {
    expect(Object.keys(views)).toEqual(['Working memory due.base', 'Decisions by project.base', 'Recently captured.base', 'Stale.base']);
    for (const text of Object.values(views)) {
      const b = parse(text) as { filters: { and: unknown[] }; views: { type: string; order: string[] }[] };
      expect(b.filters.and.slice(0, 3)).toEqual(['file.ext == "md"', 'file.inFolder("Engram")', { not: ['file.inFolder("Engram/Archive")'] }]);
      expect(b.views[0].type).toBe('table');
      // Only flat properties of the note (note.x) and of the file: nothing nested.
      for (const col of b.views[0].order) expect(col).toMatch(/^(file|note)\.[a-z_]+$/);
    }
    const due = parse(views['Working memory due.base']) as { filters: { and: string[] } };
    expect(due.filters.and).toContain('note.review_after <= today()');
    const decisions = parse(views['Decisions by project.base']) as { views: { groupBy: { property: string } }[] };
    expect(decisions.views[0].groupBy.property).toBe('note.project');
    expect(views['Stale.base']).toContain('file.mtime < now() - "60 days"');
    expect(views['Stale.base']).toContain('note.locked != true');
  });

  it('finds the Bases core plugin in either form of core-plugins.json', () => {
    expect(basesPlugin(JSON.stringify({ 'file-explorer': true, bases: true }))).toBe('on');
    expect(basesPlugin(JSON.stringify({ 'file-explorer': true, bases: false }))).toBe('off');
    expect(basesPlugin(JSON.stringify({ 'file-explorer': true }))).toBe('absent');
    expect(basesPlugin(JSON.stringify(['file-explorer', 'bases']))).toBe('on');
    expect(basesPlugin(JSON.stringify(['file-explorer']))).toBe('absent');
    expect(basesPlugin('{ not json')).toBe('absent');
    expect(basesPlugin(null)).toBe('absent');
  });
});
