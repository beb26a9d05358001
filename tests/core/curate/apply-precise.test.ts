// Applying curation lands every link on the text it pointed at, never changes what the reader sees, touches only
// the frontmatter keys it means to change, keeps provenance, and survives a crash at any step.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyProposal, planLinkRewrites, unrelink, type CurateContext } from '../../../src/core/curate/apply';
import { loadCatalog, type NoteCatalog } from '../../../src/core/curate/catalog';
import { headingKey } from '../../../src/core/curate/link-rewrite';
import { LinkResolver } from '../../../src/core/curate/link-resolver';
import { parseLinks } from '../../../src/core/curate/links';
import { makeProposal, type Proposal, type ProposalDraft } from '../../../src/core/curate/proposals';
import { mergeDraft, planRestructure } from '../../../src/core/curate/restructure';
import { decisionDraft } from '../../../src/core/curate/review';
import { StateProposalStore } from '../../../src/core/curate/stores';
import { isEngramError } from '../../../src/core/errors';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import type { VaultPort } from '../../../src/core/ports';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { sharedDir } from '../../helpers/shared';
import { buildVault, NOW, settings } from './fixtures';

function context(vault: VaultPort): CurateContext {
  const store = new StateProposalStore(new MemoryStateStore(), 'vaults/0123456789abcdef/proposals');
  return { vault, store, settings, clock: { now: () => NOW } };
}

/** The same context, with a vault and a state store that die right after the vault's n-th change (a process killed there). */
function dying(ctx: CurateContext, inner: MemoryVault, n: number): CurateContext {
  let changes = 0;
  const dead = () => new Error('crashed');
  const alive = <T>(f: () => Promise<T>): Promise<T> => (changes >= n ? Promise.reject(dead()) : f());
  const change = async <T>(f: () => Promise<T>): Promise<T> => {
    if (changes >= n) throw dead();
    const r = await f();
    changes++;
    if (changes >= n) throw dead();
    return r;
  };
  const vault: VaultPort = {
    list: () => alive(() => inner.list()),
    listConflictCopies: () => alive(() => inner.listConflictCopies()),
    read: (p) => alive(() => inner.read(p)),
    exists: (p) => alive(() => inner.exists(p)),
    create: (p, t) => change(() => inner.create(p, t)),
    writeIfUnchanged: (p, e, t) => change(() => inner.writeIfUnchanged(p, e, t)),
    append: (p, t) => change(() => inner.append(p, t)),
    trash: (p) => change(() => inner.trash(p)),
    rename: (a, b) => change(() => inner.rename(a, b)),
    watch: (f) => inner.watch(f),
  };
  const s = ctx.store;
  const store = { save: (p: Proposal) => alive(() => s.save(p)), load: (id: string) => alive(() => s.load(id)), list: () => alive(() => s.list()), remove: (id: string) => alive(() => s.remove(id)) };
  return { ...ctx, vault, store };
}

async function propose(ctx: CurateContext, catalog: NoteCatalog, draft: ProposalDraft): Promise<Proposal> {
  draft.linkRewrites = planLinkRewrites(catalog, draft).map(({ path: p, edits }) => ({ path: p, edits }));
  const p = makeProposal(draft, NOW, settings.proposalDays);
  await ctx.store.save(p);
  return p;
}

async function merge(files: Record<string, string>, members: string[]) {
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const ctx = context(vault);
  const catalog = await loadCatalog(vault);
  const p = await propose(ctx, catalog, mergeDraft(catalog, { members, minScore: 0.95, shared: [] }));
  await applyProposal(ctx, p.id);
  return { vault, files: vault.snapshot(), proposal: p };
}

/** The heading lines of a note with the text under each, up to the next heading. */
function sectionText(text: string, heading: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^#{1,6}\s/.test(l) && headingKey(l.replace(/^#+\s+/, '')) === headingKey(heading));
  if (at < 0) return undefined;
  const end = lines.findIndex((l, i) => i > at && /^#{1,6}\s/.test(l));
  return lines.slice(at + 1, end < 0 ? undefined : end).join('\n').trim();
}

/** Links whose note, heading or block is missing. */
function misses(files: Record<string, string>): string[] {
  const notes = Object.fromEntries(Object.entries(files).filter(([p]) => !p.startsWith('.trash/')));
  const resolver = new LinkResolver(Object.keys(notes));
  const out: string[] = [];
  for (const [p, text] of Object.entries(notes)) {
    for (const l of parseLinks(text)) {
      const t = resolver.resolve(l.linkpath, p);
      const shown = `${p}: ${text.slice(l.start, l.end)}`;
      if (t === null) out.push(shown);
      else if (l.heading !== undefined && sectionText(notes[t], l.heading.split('#').pop()!) === undefined) out.push(`${shown} (heading)`);
      else if (l.block !== undefined && !new RegExp(`\\s\\^${l.block}[ \\t]*$`, 'm').test(notes[t])) out.push(`${shown} (block)`);
    }
  }
  return out;
}

const SPONSOR = (who: string) => `Buy ${who} a coffee.`;
const shared = {
  'Tools/Wapply.md': `---\ntags: [tools]\n---\nWapply applies patches.\n\n## Sponsor this author\n\n${SPONSOR('the Wapply author')}\n\n## Install\n\nRun the installer. ^install\n`,
  'Tools/greasycat.md': `---\ntags: [tools]\n---\ngreasycat applies patches too.\n\n## Sponsor this author\n\n${SPONSOR('greasycat')}\n\n## Install\n\nUse the script. ^install\n\nSee [[#Sponsor this author]].\n`,
  'Notes/Links.md': 'Embed ![[greasycat#Sponsor this author]], cite [[greasycat#^install]], and [[Wapply#Sponsor this author]], [[Wapply#^install]].\n',
  'Notes/More.md': 'Also [[Wapply]] and [[Wapply#Install]].\n',
};

describe('merge: links land on the text they pointed at', () => {
  it('shared headings: a link to the absorbed note\'s heading opens that note\'s section, not the kept one\'s', async () => {
    const { files } = await merge(shared, ['Tools/Wapply.md', 'Tools/greasycat.md']);
    const merged = files['Tools/Wapply.md'];
    expect(files['Tools/greasycat.md']).toBeUndefined();
    expect(files['Notes/Links.md']).toBe('Embed ![[Wapply#Sponsor this author (greasycat)]], cite [[Wapply#^install-2|greasycat > ^install]], and [[Wapply#Sponsor this author]], [[Wapply#^install]].\n');
    expect(sectionText(merged, 'Sponsor this author (greasycat)')).toBe(SPONSOR('greasycat'));
    expect(sectionText(merged, 'Sponsor this author')).toBe(SPONSOR('the Wapply author'));
    // A link inside the absorbed note to its own heading follows it, and reads as before.
    expect(merged).toContain('See [[#Sponsor this author (greasycat)|Sponsor this author]].');
    expect(misses(files)).toEqual([]);
  });

  it('block ids stay unique in the merged note, and block links follow their block', async () => {
    const { files } = await merge(shared, ['Tools/Wapply.md', 'Tools/greasycat.md']);
    const merged = files['Tools/Wapply.md'];
    const ids = [...merged.matchAll(/\s\^([A-Za-z0-9-]+)[ \t]*$/gm)].map((m) => m[1]);
    expect(ids).toEqual(['install', 'install-2']);
    expect(merged).toContain('Run the installer. ^install\n');
    expect(merged).toContain('Use the script. ^install-2\n');
  });

  it('CRLF notes and code blocks: renamed headings and block ids keep their line breaks; code is left alone', async () => {
    const files = {
      'Tools/Wapply.md': '---\ntags: [tools]\n---\nKept.\n\n## Install\n\nRun it. ^install\n',
      'Tools/greasycat.md': '---\r\ntags: [tools]\r\n---\r\nOther.\r\n\r\n## Install\r\n\r\nUse the script. ^install\r\n\r\n```\r\n## Install\r\nx ^install\r\n```\r\n',
      'Notes/Links.md': '[[greasycat#Install]] [[greasycat#^install]] [[Wapply]] [[Wapply#Install]]\n',
      'Notes/More.md': '[[Wapply]]\n',
    };
    const { files: f } = await merge(files, ['Tools/Wapply.md', 'Tools/greasycat.md']);
    const merged = f['Tools/Wapply.md'];
    expect(merged).toContain('## Install (greasycat)\r\n\r\nUse the script. ^install-2\r\n');
    expect(merged).toContain('```\r\n## Install\r\nx ^install\r\n```');
    expect(f['Notes/Links.md']).toBe('[[Wapply#Install (greasycat)|greasycat > Install]] [[Wapply#^install-2|greasycat > ^install]] [[Wapply]] [[Wapply#Install]]\n');
  });

  it('display text never changes: [[Moore machine]]s becomes [[Mealy machine|Moore machine]]s', async () => {
    const files = {
      'M/Mealy machine.md': '---\ntags: [automata]\n---\nOutputs depend on state and input.\n\n### With [[Moore machine]]s\n\nA Mealy machine reacts faster than [[Moore machine|a Moore one]].\n',
      'M/Moore machine.md': '---\ntags: [automata]\n---\nOutputs depend on state only.\n',
      'M/Index.md': '[[Mealy machine]] and [[Moore machine]]; see [[Mealy machine]] too.\n',
      'M/Automata.md': 'Start at [[Mealy machine]].\n',
    };
    const { files: f } = await merge(files, ['M/Mealy machine.md', 'M/Moore machine.md']);
    expect(f['M/Mealy machine.md']).toContain('### With [[Mealy machine|Moore machine]]s\n\nA Mealy machine reacts faster than [[Mealy machine|a Moore one]].');
    expect(f['M/Index.md']).toBe('[[Mealy machine]] and [[Mealy machine|Moore machine]]; see [[Mealy machine]] too.\n');
  });

  it('the kept note\'s frontmatter is byte-identical except the keys the merge changes', async () => {
    const fm = '---\ntitle: Mealy machine\ntags: a, b\n\n# why we keep this\nauthors: Nguyen   Xuan Anh\ndate: 2022-06-28\n---\n';
    const files = {
      'M/Mealy machine.md': `${fm}\nBody of the kept note.\n`,
      'M/Moore machine.md': '---\ntags: [b]\n---\nBody of the other.\n',
      'M/Index.md': '[[Mealy machine]] [[Mealy machine]] [[Moore machine]]\n',
    };
    const { files: f } = await merge(files, ['M/Mealy machine.md', 'M/Moore machine.md']);
    const text = f['M/Mealy machine.md'];
    // Tags were already a and b (written as text): untouched. The other note's title becomes an alias; updated is set.
    expect(text.startsWith(`${fm.slice(0, -4)}aliases:\n  - Moore machine\nupdated: `)).toBe(true);
    expect(text).toContain('---\n\nBody of the kept note.\n\n## Moore machine\n\nBody of the other.\n');
  });

  const dwarves = path.join(sharedDir, 'corpus', 'vaults', 'dwarvesf-brain');
  it.skipIf(!fs.existsSync(dwarves))('real vault (dwarvesf-brain): Moore machine into Mealy machine keeps text, frontmatter and sections apart', async () => {
    const files: Record<string, string> = {};
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith('.')) continue;
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.name.endsWith('.md')) files[path.relative(dwarves, full).split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
      }
    };
    walk(dwarves);
    const dir = '01_literature/Engineering';
    const mealy = `${dir}/Mealy machine.md`;
    const moore = `${dir}/Moore machine.md`;
    // A note citing both notes' shared headings, as a user would write it.
    files['Cites.md'] = '[[Moore machine#Mathematical Model]] vs [[Mealy machine#Mathematical Model]]; ![[Moore machine#Reference]]\n';
    const missBefore = new Set(misses(files));
    const vault = new MemoryVault({ files, clock: { now: () => NOW } });
    const ctx = context(vault);
    const catalog = await loadCatalog(vault);
    const draft = mergeDraft(catalog, { members: [mealy, moore], minScore: 0.95, shared: [] });
    const kept = draft.writes[0].path;
    const gone = kept === mealy ? moore : mealy;
    const [keptName, goneName] = [kept, gone].map((p) => p.slice(dir.length + 1, -3));
    const p = await propose(ctx, catalog, draft);
    await applyProposal(ctx, p.id);
    const after = vault.snapshot();
    const text = after[kept];
    // The user's heading keeps its words: the link now points at the kept note, showing the old name.
    expect(text).toContain(`### With [[${keptName}|${goneName}]]s`);
    // The frontmatter, `tags: engineering, state, diagram, machines` included, is kept byte for byte.
    const fmBefore = files[kept].slice(0, files[kept].indexOf('\n---\n') + 1);
    expect(text.startsWith(`${fmBefore}aliases:\n  - ${goneName}\nupdated: `)).toBe(true);
    // Each note's "Mathematical Model" section is its own, and the links find the right one.
    expect(after['Cites.md']).toContain(`[[${keptName}#Mathematical Model (${goneName})|${goneName} > Mathematical Model]]`);
    expect(sectionText(text, `Mathematical Model (${goneName})`)).toContain(`a deterministic ${goneName.split(' ')[0]} machine has 6 main variables`);
    expect(sectionText(text, 'Mathematical Model')).toContain(`a deterministic ${keptName.split(' ')[0]} machine has 6 main variables`);
    const headings = [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => headingKey(m[1]));
    expect(new Set(headings).size).toBe(headings.length);
    expect(misses(after).filter((m) => !missBefore.has(m))).toEqual([]);
  });
});

describe('review promote', () => {
  it('keeps the source-quote callouts of the notes it promotes', async () => {
    const quote = '> [!quote]- Source\n> we should pin esbuild until the fix lands\n> — claude-code session `s1`, turn 4; extracted 2026-03-01 by claude (sonnet)';
    const files = {
      'Engram/Working memory/Pin esbuild.md': `---\nreview_after: 2026-03-05\nengram_id: e1\n---\nPinned esbuild to 0.20.\n\n${quote}\n`,
    };
    const vault = new MemoryVault({ files, clock: { now: () => NOW } });
    const catalog = await loadCatalog(vault);
    const d = decisionDraft(catalog, settings, {
      action: 'promote',
      notes: ['Engram/Working memory/Pin esbuild.md'],
      reason: 'still true',
      note: { title: 'esbuild is pinned to 0.20', tags: ['build'], links: [], body: 'esbuild stays at 0.20 until the upstream fix is released.' },
    }, '2026-03-10', 'openai')!;
    expect(d.writes[0].text).toContain(`esbuild stays at 0.20 until the upstream fix is released.\n\n${quote}\n`);
  });
});

const notLog = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).filter(([p]) => !p.startsWith('Engram/Log/') && !p.startsWith('.trash/')));

describe('apply after a crash at any step', () => {
  it('every proposal kind (merge, hub, split) crashed after each vault change is completed by the next apply', async () => {
    const counts: Record<string, number> = {};
    for (const kind of ['merge', 'hub', 'split']) {
      // The outcome without a crash.
      const ref = buildVault();
      const refCtx = context(ref.vault);
      const refPlan = await planRestructure(await loadCatalog(ref.vault), settings, { vectors: ref.vectors }, refCtx.store, NOW);
      await applyProposal(refCtx, refPlan.proposals.find((p) => p.kind === kind)!.id);
      const expected = notLog(ref.vault.snapshot());
      for (let n = 1; ; n++) {
        const { vault, vectors } = buildVault();
        const ctx = context(vault);
        const plan = await planRestructure(await loadCatalog(vault), settings, { vectors }, ctx.store, NOW);
        const id = plan.proposals.find((p) => p.kind === kind)!.id;
        const crashed = await applyProposal(dying(ctx, vault, n), id).then(() => null, (e: unknown) => e);
        if (crashed === null) break;
        expect((await ctx.store.load(id))!.applying, `${kind}, change ${n}`).toBeDefined();
        const r = await applyProposal(ctx, id);
        expect(r.resumed).toBe(true);
        expect(notLog(vault.snapshot()), `${kind}, crash after change ${n}`).toEqual(expected);
        // No link misses that an uninterrupted apply does not also leave (the fixture's own: a locked note, a missing heading).
        expect(misses(notLog(vault.snapshot()))).toEqual(misses(expected));
        const log = Object.entries(vault.snapshot()).filter(([p]) => p.startsWith('Engram/Log/')).flatMap(([, t]) => t.split('\n')).filter((l) => l.includes(id));
        expect(log.filter((l) => l.endsWith(' · started'))).toHaveLength(1);
        expect(log).toHaveLength(2);
        counts[kind] = n;
      }
    }
    // A merge of three notes relinking one note, a hub, a split into three parts relinking one note.
    expect(counts).toEqual({ merge: expect.any(Number), hub: expect.any(Number), split: expect.any(Number) });
    expect(counts.merge).toBeGreaterThanOrEqual(6);
    expect(counts.split).toBeGreaterThanOrEqual(7);
  });

  it('a note edited after the crash makes the next apply roll back; its edit and its original links are kept', async () => {
    const { vault, vectors } = buildVault();
    const ctx = context(vault);
    const before = vault.snapshot();
    const plan = await planRestructure(await loadCatalog(vault), settings, { vectors }, ctx.store, NOW);
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    // Crash after the merged note and the relinked index are written, before the other notes go to the trash.
    const steps = 2 + 2 + 1; // start log, trash + write of the kept note, relink of Index
    await applyProposal(dying(ctx, vault, steps), merge.id).catch(() => undefined);
    expect(vault.snapshot()['Notes/Index.md']).not.toBe(before['Notes/Index.md']);
    vault.externalWrite('Notes/Index.md', `${vault.snapshot()['Notes/Index.md']}Typed after the crash.\n`);
    vault.externalWrite('Notes/Prefer pnpm.md', `${before['Notes/Prefer pnpm.md']}Edited too.\n`);
    const e = await applyProposal(ctx, merge.id).then(() => null, (x: unknown) => x);
    expect(isEngramError(e, 'conflict')).toBe(true);
    expect((e as Error).message).toMatch(/was rolled back/);
    const after = notLog(vault.snapshot());
    expect(after).toEqual({ ...notLog(before), 'Notes/Index.md': `${before['Notes/Index.md']}Typed after the crash.\n`, 'Notes/Prefer pnpm.md': `${before['Notes/Prefer pnpm.md']}Edited too.\n` });
    expect((await ctx.store.load(merge.id))!.applying).toBeUndefined();
  });

  it('unrelink puts links back around an edit, and gives up when the edit touches a link', () => {
    const before = 'See [[A]] and [[B]].\n';
    const edits = [{ start: 4, end: 9, before: '[[A]]', after: '[[C|A]]' }];
    const after = 'See [[C|A]] and [[B]].\n';
    expect(unrelink(after, `Intro. ${after}`, edits)).toBe(`Intro. ${before}`);
    expect(unrelink(after, `${after}More.\n`, edits)).toBe(`${before}More.\n`);
    expect(unrelink(after, 'See [[C|A]]! and [[B]].\n', edits)).toBe('See [[A]]! and [[B]].\n');
    expect(unrelink(after, 'See [[C|X]] and [[B]].\n', edits)).toBeNull();
  });
});
