import { describe, expect, it } from 'vitest';
import { applyProposal, type CurateContext } from '../../../src/core/curate/apply';
import { loadCatalog } from '../../../src/core/curate/catalog';
import { archiveProposals, forgetNote, orphanNotes, possibleDuplicates, staleNotes } from '../../../src/core/curate/maintain';
import { MemoryProposalStore } from '../../../src/core/curate/proposals';
import { curateSettings } from '../../../src/core/curate/settings';
import { recordRecall, RecallStatsStore, curateStateNames } from '../../../src/core/curate/stores';
import { isEngramError } from '../../../src/core/errors';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { DAY, NOW } from './fixtures';

const settings = curateSettings({ device: 'laptop', actor: 'test', ttlDays: { 'failed-approach': 30 }, staleDays: 60 });
const files: Record<string, string> = {
  'Engram/Inbox/Expired.md': '---\ntype: insight\nforget_after: 2026-03-01\nengram_id: e1\ncreated: 2026-01-01T00:00:00Z\n---\nNo longer true.\n',
  'Engram/Inbox/Old attempt.md': '---\ntype: failed-approach\nengram_id: e2\ncreated: 2026-01-15T00:00:00Z\n---\nTried X; it failed. See [[Fresh]].\n',
  'Engram/Inbox/Fresh.md': '---\ntype: insight\nengram_id: e3\ncreated: 2026-03-09T00:00:00Z\n---\nRecent note.\n',
  'Engram/Inbox/Locked expired.md': '---\nforget_after: 2026-01-01\nlocked: true\nengram_id: e4\n---\nKeep me.\n',
  'Engram/Inbox/Wrong.md': '---\nengram_id: e5\ncreated: 2026-03-01T00:00:00Z\n---\nA wrong claim. The same text appears twice in this vault.\n',
  'Engram/Inbox/Lonely.md': '---\nengram_id: e6\ncreated: 2026-03-08T00:00:00Z\n---\nNothing links here and it links nowhere.\n',
  'Notes/Copy.md': 'A wrong claim. The same text appears twice in this vault.\n',
  'Notes/Links.md': 'See [[Expired]], [[Engram/Inbox/Expired#Why|why]], [[Wrong]] and [[Old attempt]].\n',
};

function setup() {
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const store = new MemoryProposalStore();
  const ctx: CurateContext = { vault, store, settings, clock: { now: () => NOW } };
  return { vault, store, ctx };
}

describe('maintenance', () => {
  it('archives notes past forget_after or their type\'s time-to-live (never locked ones), keeping links working', async () => {
    const { vault, store, ctx } = setup();
    const catalog = await loadCatalog(vault);
    const proposals = archiveProposals(catalog, settings, NOW);
    expect(proposals.map((p) => p.moves[0])).toEqual([
      ['Engram/Inbox/Expired.md', 'Engram/Archive/Expired.md'],
      ['Engram/Inbox/Old attempt.md', 'Engram/Archive/Old attempt.md'],
    ]);
    expect(vault.snapshot()).toEqual(new MemoryVault({ files }).snapshot());
    for (const p of proposals) {
      await store.save(p);
      await applyProposal(ctx, p.id);
    }
    const f = vault.snapshot();
    expect(f['Engram/Archive/Expired.md']).toBe(files['Engram/Inbox/Expired.md']);
    expect(f['Engram/Inbox/Expired.md']).toBeUndefined();
    expect(f['Engram/Inbox/Locked expired.md']).toBe(files['Engram/Inbox/Locked expired.md']);
    // A link by name still resolves (same file name); a link by path is pointed at the archive.
    expect(f['Notes/Links.md']).toBe('See [[Expired]], [[Engram/Archive/Expired#Why|why]], [[Wrong]] and [[Old attempt]].\n');
    expect(f['Engram/Log/laptop 2026-03.md']).toContain('moved `Engram/Inbox/Expired.md` → `Engram/Archive/Expired.md`');
    // Archived notes are out of curation's (and recall's) way: a second run proposes nothing.
    expect(archiveProposals(await loadCatalog(vault), settings, NOW)).toEqual([]);
  });

  it('forget moves a note to the archive at once, by title or path; refuses locked and unknown notes', async () => {
    const { vault, ctx } = setup();
    const r = await forgetNote(ctx, await loadCatalog(vault), 'Wrong', NOW);
    expect(r.moved).toEqual([['Engram/Inbox/Wrong.md', 'Engram/Archive/Wrong.md']]);
    expect(vault.snapshot()['Engram/Archive/Wrong.md']).toBe(files['Engram/Inbox/Wrong.md']);
    expect(vault.snapshot()['Engram/Log/laptop 2026-03.md']).toContain('test · maintain archive');
    const e1 = await forgetNote(ctx, await loadCatalog(vault), 'Engram/Inbox/Locked expired.md', NOW).catch((e: unknown) => e);
    expect(isEngramError(e1, 'refused')).toBe(true);
    const e2 = await forgetNote(ctx, await loadCatalog(vault), 'No such note', NOW).catch((e: unknown) => e);
    expect(isEngramError(e2, 'not-found')).toBe(true);
    expect(vault.snapshot()['Engram/Inbox/Locked expired.md']).toBe(files['Engram/Inbox/Locked expired.md']);
  });

  it('lists stale notes from recall statistics kept in state (not in notes), orphans and possible duplicates', async () => {
    const { vault } = setup();
    const state = new MemoryStateStore();
    await recordRecall(state, '0123456789abcdef', ['Engram/Inbox/Expired.md'], NOW - 10 * DAY);
    await recordRecall(state, '0123456789abcdef', ['Engram/Inbox/Expired.md', 'Engram/Inbox/Old attempt.md'], NOW - 70 * DAY);
    const stats = await new RecallStatsStore(state, curateStateNames('0123456789abcdef').recallStats).load();
    expect(stats.notes['Engram/Inbox/Expired.md']).toEqual({ count: 2, last: NOW - 10 * DAY });
    expect([...state.files.keys()]).toEqual(['vaults/0123456789abcdef/recall-stats.json']);
    const catalog = await loadCatalog(vault);
    const stale = staleNotes(catalog, settings, stats, NOW).map((s) => s.path);
    // Recalled 70 days ago; never recalled and created 54+ days ago. Fresh (created yesterday) and Expired (recalled 10 days ago) are not stale.
    expect(stale).toEqual(['Engram/Inbox/Old attempt.md']);
    expect(orphanNotes(catalog, settings)).toEqual(['Engram/Inbox/Lonely.md']);
    expect(possibleDuplicates(catalog, settings)).toEqual([{ why: 'same text', notes: ['Engram/Inbox/Wrong.md', 'Notes/Copy.md'] }]);
    // Untouched: listing never changes the vault.
    expect(vault.snapshot()).toEqual(new MemoryVault({ files }).snapshot());
  });

  it('refuses a newer recall-stats format instead of overwriting it', async () => {
    const state = new MemoryStateStore();
    await state.write('vaults/0123456789abcdef/recall-stats.json', '{"version": 99, "notes": {}}');
    await expect(recordRecall(state, '0123456789abcdef', ['a.md'], NOW)).rejects.toThrow(/format version 99, newer than this engram/);
  });
});
