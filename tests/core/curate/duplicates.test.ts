import { describe, expect, it } from 'vitest';
import { applyProposal } from '../../../src/core/curate/apply';
import { loadCatalog } from '../../../src/core/curate/catalog';
import { duplicateAsMerge, listDuplicates } from '../../../src/core/curate/duplicates';
import { MemoryProposalStore } from '../../../src/core/curate/proposals';
import { sha256Hex } from '../../../src/core/hash';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { NOW, settings } from './fixtures';

const existing = '---\ntags: [db]\n---\nStaging resets every Sunday night.\n';
const fresh = '---\ntags: [db]\nengram_id: n1\n---\nThe staging database is reset each Sunday.\n';
const dir = 'vaults/0123456789abcdef/proposals';

function record(hashNew = sha256Hex(fresh)) {
  // The shape extraction writes (src/core/extract/write-beats.ts).
  return JSON.stringify({
    version: 1,
    id: 'dup-abc123',
    kind: 'possible-duplicate',
    created: new Date(NOW).toISOString(),
    expires: new Date(NOW + 7 * 86_400_000).toISOString(),
    reason: 'similar title and text',
    score: 0.91,
    notes: [
      { path: 'Engram/Inbox/Staging reset.md', hash: hashNew, role: 'new' },
      { path: 'Notes/Staging.md', hash: sha256Hex(existing), role: 'existing' },
    ],
  });
}

async function setup(text = record()) {
  const vault = new MemoryVault({ files: { 'Notes/Staging.md': existing, 'Engram/Inbox/Staging reset.md': fresh, 'Notes/Ops.md': 'See [[Staging reset]] and [[Staging]].\n' }, clock: { now: () => NOW } });
  const state = new MemoryStateStore();
  await state.write(`${dir}/dup-abc123.json`, text);
  return { vault, state, catalog: await loadCatalog(vault) };
}

describe('possible duplicates from extraction', () => {
  it('are listed, and applied as a merge with links rewritten', async () => {
    const { vault, state, catalog } = await setup();
    expect((await listDuplicates(state, dir, NOW)).map((d) => d.id)).toEqual(['dup-abc123']);
    const p = await duplicateAsMerge(state, dir, 'dup-abc123', catalog, settings, NOW);
    expect(p.kind).toBe('merge');
    expect(p.reason).toContain('dup-abc123');
    const store = new MemoryProposalStore();
    await store.save(p);
    await applyProposal({ vault, store, settings, clock: { now: () => NOW } }, p.id);
    const f = vault.snapshot();
    // Both notes have one backlink; the one with an engram_id absorbs the other.
    expect(f['Engram/Inbox/Staging reset.md']).toContain('## Staging\n\nStaging resets every Sunday night.');
    expect(f['Notes/Staging.md']).toBeUndefined();
    expect(f['.trash/Notes/Staging.md']).toBe(existing);
    expect(f['Notes/Ops.md']).toBe('See [[Staging reset]] and [[Staging reset|Staging]].\n');
  });

  it('are refused as stale when a note changed since extraction, and expire', async () => {
    const { state, catalog } = await setup(record('0'.repeat(64)));
    await expect(duplicateAsMerge(state, dir, 'dup-abc123', catalog, settings, NOW)).rejects.toThrow(/stale: Engram\/Inbox\/Staging reset.md changed/);
    await expect(duplicateAsMerge(state, dir, 'dup-abc123', catalog, settings, NOW + 8 * 86_400_000)).rejects.toThrow(/expired/);
    expect(await listDuplicates(state, dir, NOW + 8 * 86_400_000)).toEqual([]);
    await expect(duplicateAsMerge(state, dir, 'dup-nothere', catalog, settings, NOW)).rejects.toThrow(/no proposal/);
  });
});
