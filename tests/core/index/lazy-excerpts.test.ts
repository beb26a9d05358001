// A hit's excerpt is cut when first read (the prompt hook reads it only for the hits it injects): it is the same
// excerpt as before, whatever the index holds by the time it is read, and it travels as a plain string.
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

const socket = '# Sidecar socket\n\nThe sidecar listens on a Unix socket in the vault folder; a stale socket file is removed at start.\n';
const files = {
  'Notes/Socket.md': socket,
  'Notes/Other.md': 'Runners need good shoes and a socket wrench for the bike.\n',
  'Notes/Third.md': 'Nothing about it here at all, only gardening.\n',
};

describe('lazy excerpts', () => {
  it('an excerpt read after its note changed and another was removed quotes the passage as found', async () => {
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const fresh = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await fresh.build();
    const expected = (await fresh.search('stale socket file', { limit: 3 })).hits.map((h) => h.snippet);
    const { hits } = await index.search('stale socket file', { limit: 3 });
    // The hit's note rewritten (its passage text emptied in the index) and another removed before any excerpt is read.
    index.updateText('Notes/Socket.md', 'Completely different words now.\n');
    index.remove('Notes/Other.md');
    expect(hits.map((h) => h.snippet)).toEqual(expected);
    expect(hits[0].snippet).toContain('stale socket file is removed');
  });

  it('a hit serialises, spreads and takes a new excerpt like a plain object', async () => {
    const index = new VaultIndex({ vault: new MemoryVault({ files }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const [hit] = (await index.search('stale socket file', { limit: 1 })).hits;
    const json = JSON.parse(JSON.stringify(hit)) as { snippet: string };
    expect(json.snippet).toBe(hit.snippet);
    expect({ ...hit }.snippet).toBe(hit.snippet);
    expect(Object.keys(hit).indexOf('snippet')).toBe(3);
    hit.snippet = '[withheld]';
    expect(hit.snippet).toBe('[withheld]');
    expect(JSON.stringify(hit)).toContain('"snippet":"[withheld]"');
  });
});
