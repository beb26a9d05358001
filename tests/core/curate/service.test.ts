import { describe, expect, it } from 'vitest';
import { Curation } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { ScriptedBackend } from '../../helpers/extract';
import { buildVault, NOW, settings } from './fixtures';

describe('Curation (the host-facing object)', () => {
  it('restructure → summaries → apply by id, proposals and recall stats under vaults/<key>/ in state', async () => {
    const { vault, vectors } = buildVault();
    const state = new MemoryStateStore();
    const c = new Curation({ vault, state, vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW }, vectors: () => ({ vectors, kind: 'test vectors' }) });
    const plan = await c.restructurePlan();
    expect(plan.vectors).toBe('test vectors');
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    expect(merge.linkRewrites.reduce((n, r) => n + r.edits.length, 0)).toBe(9);
    expect([...state.files.keys()].every((k) => k.startsWith('vaults/0123456789abcdef/proposals/'))).toBe(true);
    const [outcome, refused] = await c.apply([merge.id, 'nosuchid1234'], { actor: 'plugin' });
    expect(outcome).toMatchObject({ id: merge.id, ok: true, result: { kind: 'merge', relinked: ['Notes/Index.md'] } });
    // One refused id stops none and says why; the vault's log names who applied.
    expect(refused).toMatchObject({ id: 'nosuchid1234', ok: false });
    expect(refused.error).toMatch(/nosuchid1234/);
    expect((await vault.read(outcome.result!.logPath)).text).toMatch(/plugin/);
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
    const plan = await c.restructurePlan();
    expect(plan.vectors).toMatch(/word vectors/);
    expect(plan.proposals.map((p) => p.kind)).toEqual(['merge']);
    await expect(c.restructurePlan({ folder: 'nowhere' })).rejects.toThrow(/no notes in folder nowhere/);
    await expect(c.restructurePlan({ threshold: 1.5 })).rejects.toThrow(/between 0 and 1/);
    await c.recordRecall(['a/Deploy from root.md']);
    const r = await c.forget('Deploy from root');
    expect(r).toMatchObject({ path: 'a/Deploy from root.md', archivedTo: 'Engram/Archive/Deploy from root.md' });
    // An agent may not archive the user's own note; a person naming its exact path may.
    await expect(c.forget('a/Deploy from the root.md')).rejects.toThrow(/not a note Engram created/);
    expect((await c.forget('a/Deploy from the root.md', { byUser: true })).archivedTo).toBe('Engram/Archive/Deploy from the root.md');
    expect((await c.recallStats.load()).notes['Engram/Archive/Deploy from root.md']).toEqual({ count: 1, last: NOW });
  });

  it('applies a promotion with the text the user edited; the planned proposal stays as planned; only new notes are editable', async () => {
    const wm = (fm: string, body: string) => `---\ntype: problem\nscope: general\n${fm}engram_source: hook-extraction\n---\n${body}\n`;
    const vault = new MemoryVault({
      files: {
        'Engram/Working memory/Flaky upload.md': wm('review_after: 2026-03-01\n', 'The upload fails one run in five; one retry fixes it.'),
        'Engram/Working memory/Half done.md': wm('review_after: 2026-03-01\n', 'Auth migration, half done.'),
      },
      clock: { now: () => NOW },
    });
    const backend = new ScriptedBackend((req) => {
      const paths = [...(req.user ?? '').matchAll(/^path: (.+)$/gm)].map((m) => m[1]);
      return JSON.stringify({
        decisions: paths.map((p) =>
          p.includes('Flaky')
            ? { action: 'promote', notes: [p], reason: 'a fix', note: { title: 'Retry the upload once', type: 'problem', tags: [], links: [], body: 'Retry the upload once.' } }
            : { action: 'extend', notes: [p], reason: 'in progress', weeks: 2 },
        ),
      });
    });
    const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW }, backend: () => backend });
    const plan = await c.reviewPlan({ dueWithinDays: 30 });
    const promote = plan.proposals.find((p) => p.kind === 'promote')!;
    const extend = plan.proposals.find((p) => p.kind === 'extend')!;
    const write = promote.writes[0];
    // Refused: a note the proposal replaces (not creates), and an empty text; nothing changes.
    const [notNew, empty] = await c.apply([extend.id, promote.id], {
      edits: [
        { id: extend.id, path: extend.writes[0].path, text: 'mine' },
        { id: promote.id, path: write.path, text: '  ' },
      ],
    });
    expect(notNew).toMatchObject({ ok: false, error: expect.stringMatching(/creates no note at Engram\/Working memory\/Half done\.md/) as unknown });
    expect(empty).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) as unknown });
    expect(await vault.exists(write.path)).toBe(false);
    const edited = write.text.replace('Retry the upload once.', 'Retry the upload once; twice never helped.');
    const [ok] = await c.apply([promote.id], { edits: [{ id: promote.id, path: write.path, text: edited }] });
    expect(ok).toMatchObject({ id: promote.id, ok: true, result: { kind: 'promote', wrote: [write.path] } });
    expect((await vault.read(write.path)).text).toBe(edited);
    expect(await vault.exists('Engram/Working memory/Flaky upload.md')).toBe(false);
    // The planned proposal itself was not applied (the edited copy was): applying it now is refused as stale.
    const [again] = await c.apply([promote.id]);
    expect(again.ok).toBe(false);
  });
});
