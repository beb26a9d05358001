import { describe, expect, it } from 'vitest';
import { applyProposal, type CurateContext } from '../../../src/core/curate/apply';
import { loadCatalog } from '../../../src/core/curate/catalog';
import { planRestructure } from '../../../src/core/curate/restructure';
import { StateProposalStore } from '../../../src/core/curate/stores';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { isEngramError } from '../../../src/core/errors';
import { BIG, buildVault, DAY, NOW, settings } from './fixtures';

async function setup() {
  const { vault, vectors } = buildVault();
  const state = new MemoryStateStore();
  const store = new StateProposalStore(state, 'vaults/0123456789abcdef/proposals');
  const catalog = await loadCatalog(vault);
  const plan = await planRestructure(catalog, settings, { vectors }, store, NOW);
  let now = NOW;
  const clock = { now: () => now };
  const ctx: CurateContext = { vault, store, settings, clock };
  return { vault, state, store, plan, ctx, advance: (ms: number) => (now += ms) };
}

function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('restructure planning', () => {
  it('proposes one merge (locked note left out), one hub for six notes and one split, and changes nothing', async () => {
    const { vault, plan } = await setup();
    const before = buildVault().vault.snapshot();
    expect(vault.snapshot()).toEqual(before);
    const kinds = plan.proposals.map((p) => `${p.kind}:${p.sources.map((s) => s.path).join(',')}`).sort();
    expect(kinds).toEqual([
      'hub:Cluster/Retry 1.md,Cluster/Retry 2.md,Cluster/Retry 3.md,Cluster/Retry 4.md,Cluster/Retry 5.md,Cluster/Retry 6.md',
      'merge:Notes/Prefer pnpm.md,Notes/Use pnpm.md,Notes/pnpm only.md',
      'split:Notes/Big guide.md',
    ]);
    for (const p of plan.proposals) expect(p.sources.map((s) => s.path)).not.toContain('Notes/Locked pnpm.md');
    expect(plan.pairsCompared).toBeGreaterThan(0);
    // 13 notes have vectors; the locked one is never considered.
    expect(plan.notesWithVectors).toBe(12);
  });

  it('--folder limits every proposal to notes inside that folder', async () => {
    const { vault, vectors } = buildVault();
    const plan = await planRestructure(await loadCatalog(vault), settings, { vectors }, null, NOW, 'Cluster');
    expect(plan.proposals.map((p) => p.kind)).toEqual(['hub']);
    expect(plan.notesConsidered).toBe(6);
  });

  it('a merge proposal carries the exact text, the notes removed and the link rewrites', async () => {
    const { plan } = await setup();
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    // `Use pnpm` has the most backlinks, so it absorbs the others.
    expect(merge.writes.map((w) => w.path)).toEqual(['Notes/Use pnpm.md']);
    expect(merge.trash.sort()).toEqual(['Notes/Prefer pnpm.md', 'Notes/Use pnpm.md', 'Notes/pnpm only.md']);
    const text = merge.writes[0].text;
    expect(text).toContain('We use pnpm, not npm. ^why');
    expect(text).toContain('## Prefer pnpm\n\nPrefer pnpm over npm in this repo.');
    expect(text).toContain('## pnpm only\n\nOnly pnpm: npm breaks the workspace.');
    expect(text).toMatch(/aliases:\n {2}- Prefer pnpm\n {2}- pnpm only/);
    // The kept note's frontmatter keeps its style: the flow list grows in place.
    expect(text.startsWith('---\ntags: [tooling, node]\nsummary: Use pnpm for installs.\n')).toBe(true);
    expect(merge.linkRewrites.map((r) => r.path)).toEqual(['Notes/Index.md']);
    expect(merge.linkRewrites[0].edits.length).toBe(9);
  });
});

describe('applying restructure proposals', () => {
  it('merge: writes the note, rewrites every link form, trashes the originals, logs, leaves locked and invalid notes alone', async () => {
    const { vault, plan, ctx } = await setup();
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    const locked = vault.snapshot()['Notes/Locked pnpm.md'];
    const broken = vault.snapshot()['Notes/Broken.md'];
    const r = await applyProposal(ctx, merge.id);
    const files = vault.snapshot();
    expect(files['Notes/Use pnpm.md']).toBe(merge.writes[0].text);
    expect(files['Notes/Prefer pnpm.md']).toBeUndefined();
    expect(files['Notes/pnpm only.md']).toBeUndefined();
    expect(files['.trash/Notes/Prefer pnpm.md']).toBe('---\ntags: [tooling, node]\n---\nPrefer pnpm over npm in this repo.\n');
    expect(files['.trash/Notes/pnpm only.md']).toContain('Only pnpm');
    expect(files['.trash/Notes/Use pnpm.md']).toContain('We use pnpm, not npm.');
    const index = files['Notes/Index.md'];
    expect(index).toContain('related: ["[[Use pnpm]]", "[[Big guide#Usage]]"]');
    expect(index).toContain('Links: [[Use pnpm|Prefer pnpm]], [[Use pnpm|pref]], [[Use pnpm#Intro|Prefer pnpm > Intro]], ![[Use pnpm]], [[Use pnpm#^blk|blk]],');
    expect(index).toContain('[[Notes/Use pnpm|by path]], [md](Use%20pnpm.md), | [[Use pnpm\\|table]] |,');
    expect(index).toContain('[[Locked pnpm]].');
    expect(files['Notes/Locked pnpm.md']).toBe(locked);
    expect(files['Notes/Broken.md']).toBe(broken);
    expect(r.relinked).toEqual(['Notes/Index.md']);
    // The notes with invalid YAML or a lock keep their links to a trashed note: the proposal, the result and the log say so.
    const left = [
      { path: 'Notes/Broken.md', links: 1, why: 'its frontmatter is not valid YAML' },
      { path: 'Notes/Locked pnpm.md', links: 1, why: 'it is locked' },
    ];
    expect(merge.leftAlone).toEqual(left);
    expect(r.leftAlone).toEqual(left);
    const log = files['Engram/Log/test box 2026-03.md'];
    expect(log).toContain('links left as written in Notes/Broken.md (its frontmatter is not valid YAML)');
    expect(log).toContain(`proposal \`${merge.id}\``);
    expect(log).toContain('test · restructure merge');
    expect(log).toContain('from `Notes/Prefer pnpm.md`, `Notes/Use pnpm.md`, `Notes/pnpm only.md`');
    // Applying twice is refused.
    expect(isEngramError(await errorOf(applyProposal(ctx, merge.id)), 'refused')).toBe(true);
  });

  it('split: parts written, heading and block links follow their text, the hub keeps the path and frontmatter', async () => {
    const { vault, plan, ctx } = await setup();
    const split = plan.proposals.find((p) => p.kind === 'split')!;
    await applyProposal(ctx, split.id);
    const files = vault.snapshot();
    expect(files['.trash/Notes/Big guide.md']).toBe(BIG);
    const hub = files['Notes/Big guide.md'];
    expect(hub.startsWith('---\ntags: [guide]\naliases: [The big one]\n# a comment the hub keeps\n---\nOpening words of the guide, see [[Big guide - Usage|Usage]].')).toBe(true);
    // The short "See also" section stays in the hub, its heading link pointed at the part.
    expect(hub.endsWith('# Parts\n\n- [[Big guide - Setup]]\n- [[Big guide - Usage]]\n- [[Big guide - Troubleshooting]]\n\n# See also\n\n- [[Index]] and [[Big guide - Usage|Usage]]\n')).toBe(true);
    expect(split.reason).toMatch(/4 top-level sections \(1 short ones? stays? in the hub\)/);
    expect(files['Notes/Big guide - Setup.md']).toContain('## Linux\n\nInstall it on Linux.');
    expect(files['Notes/Big guide - Usage.md']).toContain('A paragraph worth citing. ^cite1');
    expect(files['Notes/Big guide - Troubleshooting.md']).toContain('See [[Big guide - Setup|Setup]] again.');
    expect(files['Notes/Big guide - Setup.md']).toContain('engram_source: restructure');
    const index = files['Notes/Index.md'];
    expect(index).toContain('"[[Big guide - Usage]]"');
    expect(index).toContain('[[Big guide]], [[Big guide - Setup|Big guide > Setup]], [[Big guide - Setup#Linux|linux]], [[Big guide - Usage#^cite1|Big guide > ^cite1]], ![[Big guide - Troubleshooting]],');
  });

  it('hub: a new note linking the six similar notes, nothing removed', async () => {
    const { vault, plan, ctx } = await setup();
    const hub = plan.proposals.find((p) => p.kind === 'hub')!;
    // It explains itself as a merge does: a confidence, then what matched (and differs) pair by pair.
    expect(hub.reason).toMatch(/^confidence [01]\.\d\d: 6 notes, more than 5 to merge at once: a hub links them, to merge by hand \| Retry \d and Retry \d: .*in common/);
    expect(hub.writes[0].text).toMatch(/These 6 notes say much the same thing \(confidence [01]\.\d\d\)/);
    await applyProposal(ctx, hub.id);
    const files = vault.snapshot();
    const text = files['Cluster/retries hub.md'];
    for (let i = 1; i <= 6; i++) {
      expect(text).toContain(`- [[Retry ${i}]]: Retry note ${i}.`);
      expect(files[`Cluster/Retry ${i}.md`]).toBeDefined();
    }
  });

  it('refuses a stale proposal (a source changed) and changes nothing', async () => {
    const { vault, plan, ctx } = await setup();
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    vault.externalWrite('Notes/Prefer pnpm.md', '---\ntags: [tooling, node]\n---\nPrefer pnpm. Edited by the user.\n');
    const before = vault.snapshot();
    const e = await errorOf(applyProposal(ctx, merge.id));
    expect(isEngramError(e, 'refused')).toBe(true);
    expect((e as Error).message).toMatch(/stale: Notes\/Prefer pnpm.md changed/);
    expect(vault.snapshot()).toEqual(before);
  });

  it('works by id in a later run (store reopened), refuses after 7 days, and refuses unknown ids', async () => {
    const { vault, state, plan, ctx, advance } = await setup();
    const split = plan.proposals.find((p) => p.kind === 'split')!;
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    const reopened = new StateProposalStore(state, 'vaults/0123456789abcdef/proposals');
    expect((await reopened.list()).length).toBe(3);
    advance(DAY);
    await applyProposal({ ...ctx, store: reopened }, split.id);
    expect(vault.snapshot()['Notes/Big guide - Usage.md']).toBeDefined();
    advance(7 * DAY);
    const before = vault.snapshot();
    expect((await errorOf(applyProposal({ ...ctx, store: reopened }, merge.id)) as Error).message).toMatch(/expired/);
    expect(isEngramError(await errorOf(applyProposal(ctx, 'abcdef123456')), 'not-found')).toBe(true);
    expect(vault.snapshot()).toEqual(before);
  });

  it('recomputes link rewrites at apply time, so links added since the proposal follow too', async () => {
    const { vault, plan, ctx } = await setup();
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    // The user edits the linking note after the proposal was made: rewrites are recomputed, so this still applies.
    vault.externalWrite('Notes/Index.md', `${vault.snapshot()['Notes/Index.md']}New [[Prefer pnpm#Later]] link.\n`);
    await applyProposal(ctx, merge.id);
    expect(vault.snapshot()['Notes/Index.md']).toContain('New [[Use pnpm#Later|Prefer pnpm > Later]] link.');
  });

  it('is atomic: when a linking note changes during the apply, the new notes are undone and nothing is removed', async () => {
    const { vault, plan, ctx } = await setup();
    const split = plan.proposals.find((p) => p.kind === 'split')!;
    const before = vault.snapshot();
    // The user saves Index.md at the moment Engram rewrites its links.
    const racing = Object.create(vault) as typeof vault;
    racing.writeIfUnchanged = async (path, expected, text) => {
      if (path === 'Notes/Index.md') vault.externalWrite(path, `${expected}typed meanwhile\n`);
      return vault.writeIfUnchanged(path, expected, text);
    };
    const e = await errorOf(applyProposal({ ...ctx, vault: racing }, split.id));
    expect(isEngramError(e, 'conflict')).toBe(true);
    const after = vault.snapshot();
    expect(after['Notes/Big guide.md']).toBe(BIG);
    expect(after['Notes/Index.md']).toBe(`${before['Notes/Index.md']}typed meanwhile\n`);
    for (const w of split.writes.slice(1)) expect(after[w.path]).toBeUndefined();
    // Logged before and after: started, then rolled back.
    const log = after['Engram/Log/test box 2026-03.md'].split('\n').filter((l) => l.startsWith('- '));
    expect(log).toHaveLength(2);
    expect(log[0].endsWith(`proposal \`${split.id}\` · started`)).toBe(true);
    expect(log[1]).toContain(`proposal \`${split.id}\` · rolled back, nothing changed (`);
  });

  it('a source edited after the new notes are written is left in place, the new notes are undone, and the log says so', async () => {
    const { vault, plan, ctx } = await setup();
    const split = plan.proposals.find((p) => p.kind === 'split')!;
    const racing = Object.create(vault) as typeof vault;
    racing.create = async (path, text) => {
      const r = await vault.create(path, text);
      if (path === split.writes[1].path) vault.externalWrite('Notes/Big guide.md', `${BIG}Edited during the apply.\n`);
      return r;
    };
    const e = await errorOf(applyProposal({ ...ctx, vault: racing }, split.id));
    expect(isEngramError(e, 'conflict')).toBe(true);
    const f = vault.snapshot();
    expect(f['Notes/Big guide.md']).toBe(`${BIG}Edited during the apply.\n`);
    for (const w of split.writes.slice(1)) expect(f[w.path]).toBeUndefined();
    expect(f['Engram/Log/test box 2026-03.md']).toMatch(/rolled back, nothing changed \(.*Notes\/Big guide.md changed while the proposal was applied/);
    expect((await ctx.store.load(split.id))!.applying).toBeUndefined();
  });
});
