// A note that is only frontmatter (a film, a person) is quoted by its properties as `key: value` text, never by raw
// YAML or an empty excerpt (issue 21), and a loaded snapshot quotes it the same.
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';
import { propertyText } from '../../../src/core/index/note-doc.js';

const film = '---\ncategories:\n  - "[[Movies]]"\ncover: https://example.com/poster.jpg\ndirector:\n  - "[[Ridley Scott]]"\ncast:\n  - "[[Harrison Ford]]"\n  - "[[Sean Young]]"\nyear: 1982\nrating: 7\nlast: 2023-09-14\n---\n\n';

describe('property excerpts', () => {
  it('a note of properties only is quoted by them, and a loaded snapshot quotes it the same', async () => {
    const files = { 'References/Blade Runner.md': film, 'Notes/Other.md': 'Runners need good shoes.\n' };
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const [hit] = (await index.search('who directed Blade Runner', { limit: 3 })).hits;
    expect(hit.path).toBe('References/Blade Runner.md');
    expect(hit.snippet).toContain('director: Ridley Scott');
    expect(hit.snippet).toContain('cast: Harrison Ford, Sean Young');
    expect(hit.snippet).not.toMatch(/---|\[\[|https?:/);
    const loaded = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await loaded.loadSnapshotAsync(await index.snapshotAsync());
    expect((await loaded.search('who directed Blade Runner', { limit: 1 })).hits[0].snippet).toBe(hit.snippet);
  });

  it('a template is found by the properties it declares empty, and frontmatter-only notes are not one result', async () => {
    const files = {
      'Templates/Contact Template.md': '---\ncategories:\n  - "[[People]]"\nphone:\ntwitter:\norg:\ntags:\n---\n',
      'Templates/Real Estate Template.md': '---\ncategories:\n  - "[[Places]]"\naddress:\nprice:\nsqft:\nloc: []\n---\n',
      'Templates/Board Game Template.md': '---\ncategories:\n  - "[[Board games]]"\nmaker:\nrating:\n---\n',
      'References/Catan.md': '---\ncategories:\n  - "[[Board games]]"\nmaker:\nrating: 7\n---\n',
      'Notes/Twitter.md': 'I left Twitter in 2023 and do not miss the noise.\n',
    };
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const top = async (q: string) => (await index.search(q, { limit: 5, mode: 'bm25' })).hits.map((h) => h.path);
    expect((await top("where do I keep someone's phone number and twitter handle"))[0]).toBe('Templates/Contact Template.md');
    expect((await top('price and sqft of a place'))[0]).toBe('Templates/Real Estate Template.md');
    // Both have no body: by their body alone they were "the same note" and only the better ranked one was shown.
    expect(await top('board games')).toEqual(expect.arrayContaining(['Templates/Board Game Template.md', 'References/Catan.md']));
    // A key read elsewhere (`tags`) is not made a word by being empty.
    expect(await top('tags')).toEqual([]);
  });

  it('a note made from a template is its own result, found by the category its `type` list names', async () => {
    const body = '## Trips\n\n![[Trips.base#Location]]\n\n## Places\n\n![[Map.base#Location]]\n';
    const files = {
      'Templates/City Template.md': `---\ncategories:\n  - "[[Places]]"\ntype:\n  - "[[Cities]]"\nloc:\nrating:\n---\n${body}`,
      'References/Kyoto.md': `---\ncategories:\n  - "[[Places]]"\ntype:\n  - "[[Cities]]"\nloc:\n  - "[[Japan]]"\nrating: 7\n---\n${body}`,
      'Notes/Places list.md': '---\ntype: decision\n---\nWe keep the list of places short.\n',
    };
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const hits = (await index.search('which city in Japan', { limit: 5, mode: 'bm25' })).hits;
    // The same body as the template: once collapsed into it ("near-duplicate collapsed: [[Kyoto]]") and never shown.
    expect(hits[0].path).toBe('References/Kyoto.md');
    expect(hits[0].snippet).toContain('type: Cities');
    const cities = (await index.search('cities', { limit: 5, mode: 'bm25' })).hits.map((h) => h.path);
    expect(cities.sort()).toEqual(['References/Kyoto.md', 'Templates/City Template.md']);
    // A `type` that is a word is Engram's note type, read as such and not searched.
    expect((await index.search('decision', { limit: 5, mode: 'bm25' })).hits).toEqual([]);
  });

  it('numbers are kept in the properties, dates, times and addresses left out', () => {
    const text = propertyText({
      coordinates: ['34.9689499', '135.7692576'],
      price: 12.5,
      phone: '+1 555-0100',
      version: '1.2.3',
      played: '2023-09-01',
      visited: '12/09/2023',
      at: '10:30',
      opened: '2023-09-12T10:00:00+02:00',
      url: 'https://example.com/x',
    });
    expect(text.split('\n')).toEqual(['coordinates: 34.9689499, 135.7692576', 'price: 12.5', 'phone: +1 555-0100', 'version: 1.2.3']);
  });
});
