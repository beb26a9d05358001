// A note that is only frontmatter (a film, a person) is quoted by its properties as `key: value` text, never by raw
// YAML or an empty excerpt (issue 21), and a loaded snapshot quotes it the same.
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

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
});
