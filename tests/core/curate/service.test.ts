import { describe, expect, it } from 'vitest';
import { Curation, summarize } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { buildVault, NOW, settings } from './fixtures';

describe('Curation (the host-facing object)', () => {
  it('restructure → summaries → apply by id, proposals and recall stats under vaults/<key>/ in state', async () => {
    const { vault, vectors } = buildVault();
    const state = new MemoryStateStore();
    const c = new Curation({ vault, state, vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW }, vectors: () => vectors });
    const plan = await c.restructure();
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    const s = summarize(merge);
    expect(s).toMatchObject({ kind: 'merge', notesRelinked: 1, linkEdits: 9, trash: merge.trash });
    expect([...state.files.keys()].every((k) => k.startsWith('vaults/0123456789abcdef/proposals/'))).toBe(true);
    const r = await c.apply(merge.id);
    expect(r.relinked).toEqual(['Notes/Index.md']);
    await c.recordRecall(['Notes/Index.md']);
    expect(JSON.parse(state.files.get('vaults/0123456789abcdef/recall-stats.json')!)).toEqual({ version: 1, notes: { 'Notes/Index.md': { count: 1, last: NOW } } });
  });

  it('restructure without index vectors falls back to word vectors; forget archives and keeps recall history', async () => {
    const vault = new MemoryVault({
      files: {
        'a/Deploy from root.md': '---\ntags: [x]\nengram_id: d1\n---\nThe deploy script must run from the repository root directory.\n',
        'a/Deploy from the root.md': '---\ntags: [x]\n---\nThe deploy script must run from the repository root directory!\n',
      },
      clock: { now: () => NOW },
    });
    const state = new MemoryStateStore();
    const c = new Curation({ vault, state, vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } });
    expect((await c.restructure()).proposals.map((p) => p.kind)).toEqual(['merge']);
    await c.recordRecall(['a/Deploy from root.md']);
    const r = await c.forget('Deploy from root');
    expect(r.moved).toEqual([['a/Deploy from root.md', 'Engram/Archive/Deploy from root.md']]);
    expect((await c.recallStats.load()).notes['Engram/Archive/Deploy from root.md']).toEqual({ count: 1, last: NOW });
  });
});
