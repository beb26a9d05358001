// A question a frontmatter property answers is shown that property as `key: value` text (issue 21): never raw YAML,
// never an empty excerpt for a note that is only frontmatter.
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { propertyLines, propertyText } from '../../../src/core/index/note-doc.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

const film = '---\ncategories:\n  - "[[Movies]]"\ncover: https://example.com/poster.jpg\ndirector:\n  - "[[Ridley Scott]]"\ncast:\n  - "[[Harrison Ford]]"\n  - "[[Sean Young]]"\nyear: 1982\nrating: 7\nlast: 2023-09-14\n---\n\n';
const person = '---\ncategories:\n  - "[[People]]"\norg:\n  - "[[Obsidian]]"\ntwitter: kepano\ncreated: 2023-09-12\n---\n## Clippings\n\n![[Clippings.base#Author]]\n';
const plugin = '---\nauthor: "[[Jane Doe|Jane]]"\ncover: "[[tables.png]]"\n---\n# Advanced Tables\n\nNavigate and format Markdown tables with Tab and Enter.\n';

async function index(files: Record<string, string>): Promise<VaultIndex> {
  const i = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
  await i.build();
  return i;
}

describe('property excerpts', () => {
  it('reads properties as key: value lines, links by their text, addresses, dates and bookkeeping left out', () => {
    const data = { categories: ['[[Movies]]'], cover: 'https://example.com/poster.jpg', director: ['[[Ridley Scott]]'], cast: ['[[Harrison Ford]]', '[[Sean Young]]'], year: 1982, rating: 7, last: '2023-09-14', poster: '[[blade.jpg]]' };
    expect(propertyLines(data)).toBe('categories: Movies\ndirector: Ridley Scott\ncast: Harrison Ford, Sean Young\nyear: 1982');
    // The indexed words are what they were: the key's words, then its values.
    expect(propertyText(data)).toBe('categories\nMovies\ndirector\nRidley Scott\ncast\nHarrison Ford\nSean Young\nyear\n1982\nposter\nblade.jpg');
    expect(propertyLines(null)).toBe('');
  });

  it('a note that is only frontmatter is quoted by its properties; the one a question names leads the excerpt', async () => {
    const i = await index({ 'References/Blade Runner.md': film, 'References/Steph Ango.md': person, 'Plugins/table-editor.md': plugin, 'Notes/Other.md': 'Twitter threads are hard to read.\n' });
    const [blade] = (await i.search('who directed Blade Runner', { limit: 3 })).hits;
    expect(blade.path).toBe('References/Blade Runner.md');
    expect(blade.snippet).toContain('director: Ridley Scott');
    expect(blade.snippet).toContain('cast: Harrison Ford, Sean Young');
    expect(blade.snippet).not.toMatch(/---|\[\[|https?:/);
    const [steph] = (await i.search("Steph Ango's twitter handle", { limit: 3 })).hits;
    expect(steph.path).toBe('References/Steph Ango.md');
    expect(steph.snippet.startsWith('twitter: kepano · ')).toBe(true);
    const [tables] = (await i.search('advanced tables plugin by Jane', { limit: 3 })).hits;
    expect(tables.snippet.startsWith('author: Jane · ')).toBe(true);
    expect(tables.snippet).toContain('Navigate and format Markdown tables');
    expect(tables.snippet).not.toContain('tables.png');
    // A question the passage answers keeps the passage's excerpt alone.
    const [plain] = (await i.search('format Markdown tables with Tab', { limit: 3 })).hits;
    expect(plain.snippet).toBe('Advanced Tables Navigate and format Markdown tables with Tab and Enter.');
  });

  it('survives a snapshot: a loaded index shows the same property excerpts', async () => {
    const i = await index({ 'References/Blade Runner.md': film });
    const loaded = new VaultIndex({ vault: new MemoryVault({ files: { 'References/Blade Runner.md': film } }), clock: fixedClock(), yieldNow: noYield });
    await loaded.loadSnapshotAsync(await i.snapshotAsync());
    expect((await loaded.search('Blade Runner director', { limit: 1 })).hits[0].snippet).toBe((await i.search('Blade Runner director', { limit: 1 })).hits[0].snippet);
    expect((await loaded.search('Blade Runner director', { limit: 1 })).hits[0].snippet).toContain('director: Ridley Scott');
  });
});
