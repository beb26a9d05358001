import { afterEach, describe, expect, it } from 'vitest';
import { applyProposal, type CurateContext } from '../../../src/core/curate/apply';
import { loadCatalog } from '../../../src/core/curate/catalog';
import { MemoryProposalStore } from '../../../src/core/curate/proposals';
import { planReview } from '../../../src/core/curate/review';
import { Curation } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { parseNote } from '../../../src/core/note/frontmatter';
import { readNoteMeta, type NoteMeta } from '../../../src/core/note/meta';
import { OpenAiBackend } from '../../../src/core/extract/backends/openai';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { ENGRAM_PROMPT_MARKER } from '../../../src/core/transcript/fence';
import { NOW, settings } from './fixtures';
import { scriptedOpenAi, type ScriptedServer } from './scripted-openai';

const WM = 'Engram/Working memory';
const files: Record<string, string> = {
  [`${WM}/Flaky test in CI.md`]: '---\ntype: problem\nproject: engram\nscope: project\ntags: [ci]\nreview_after: 2026-03-05\nengram_id: a1\n---\nThe e2e test fails one run in ten.\n\n## Seen\n\nOn main only.\n',
  [`${WM}/CI cache key.md`]: '---\nproject: engram\ntags: [ci]\nreview_after: 2026-03-12\n---\nThe cache key ignores the lockfile; suspect for the flaky test.\n',
  [`${WM}/Temp workaround.md`]: '---\nproject: engram\ntags: [build]\n# keep this comment\nreview_after: "2026-03-01"  # quoted on purpose\n---\nPinned esbuild to 0.20 until the fix lands.\n',
  [`${WM}/Try bun.md`]: '---\nreview_after: 2026-03-08\n---\nMaybe try bun some day.\n',
  [`${WM}/Not yet.md`]: '---\nreview_after: 2026-04-30\ntags: [ci]\n---\nLater.\n',
  [`${WM}/Locked wm.md`]: '---\nreview_after: 2026-03-01\nlocked: true\ntags: [ci]\n---\nLocked working note.\n',
  'Notes/Refs.md': 'See [[Flaky test in CI]], [[Flaky test in CI#Seen|seen]], ![[CI cache key]], [[Temp workaround]], [[Try bun]].\n',
};

function reply(user: string): string {
  if (user.includes('Flaky test in CI')) {
    return '```json\n' + JSON.stringify({
      decisions: [{
        action: 'promote',
        notes: [`${WM}/Flaky test in CI.md`, `${WM}/CI cache key.md`],
        reason: 'root cause found',
        note: { title: 'CI flakiness: cache key ignores the lockfile', summary: 'The e2e flake came from a stale CI cache.', type: 'problem', tags: ['ci', 'cache'], links: ['Refs', 'Missing note'], body: 'The e2e test failed one run in ten because the cache key ignored the lockfile.\n\n## Seen\n\nOn main only.' },
      }],
    }) + '\n```';
  }
  if (user.includes('Temp workaround')) return '{"decisions":[{"action":"extend","notes":["Engram/Working memory/Temp workaround.md"],"reason":"fix not released","weeks":2,}]}';
  // A title instead of a path is understood too.
  if (user.includes('Try bun')) return JSON.stringify({ decisions: [{ action: 'delete', notes: ['Try bun'], reason: 'idle idea' }] });
  return 'no idea';
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replyFn = reply) {
  server = await scriptedOpenAi(replyFn);
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const store = new MemoryProposalStore();
  const backend = new OpenAiBackend({ baseUrl: server.url, model: 'scripted', paid: false, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } as never });
  const catalog = await loadCatalog(vault);
  const plan = await planReview(catalog, settings, { backend, store, now: NOW, horizonDays: 7, preferences: 'Keep every CI fix.' });
  const ctx: CurateContext = { vault, store, settings, clock: { now: () => NOW } };
  return { vault, store, plan, ctx };
}

describe('working-memory review', () => {
  it('lists due notes (locked and later ones excluded), groups related ones, and proposes without changing anything', async () => {
    const { vault, plan } = await setup();
    expect(plan.due.map((d) => d.path)).toEqual([`${WM}/Temp workaround.md`, `${WM}/Flaky test in CI.md`, `${WM}/Try bun.md`, `${WM}/CI cache key.md`]);
    expect(plan.groups).toEqual([[`${WM}/Temp workaround.md`], [`${WM}/Flaky test in CI.md`, `${WM}/CI cache key.md`], [`${WM}/Try bun.md`]]);
    expect(plan.proposals.map((p) => p.kind)).toEqual(['extend', 'promote', 'delete']);
    expect(plan.problems).toEqual([]);
    expect(server!.requests).toHaveLength(3);
    expect(server!.requests[0].system).toContain(ENGRAM_PROMPT_MARKER);
    expect(server!.requests[1].user).toContain('<note>\npath: Engram/Working memory/Flaky test in CI.md');
    expect(server!.requests[1].user).toContain('<preferences>\nKeep every CI fix.\n</preferences>');
    expect(vault.snapshot()).toEqual(new MemoryVault({ files }).snapshot());
  });

  it('promote: writes the durable note, points links at it, trashes the working notes, logs who and what', async () => {
    const { vault, plan, ctx } = await setup();
    const promote = plan.proposals.find((p) => p.kind === 'promote')!;
    await applyProposal(ctx, promote.id);
    const f = vault.snapshot();
    const path = 'Engram/Projects/engram/CI flakiness cache key ignores the lockfile.md';
    expect(f[path]).toBe(promote.writes[0].text);
    expect(f[path]).toMatch(/^---\ntype: problem\nscope: project\nproject: engram\nsummary: The e2e flake came from a stale CI cache.\ntags:\n {2}- ci\n {2}- cache\nrelated:\n {2}- "\[\[Refs\]\]"\n/);
    expect(f[path]).toContain('engram_source: review');
    expect(f[path]).toContain('The e2e test failed one run in ten because the cache key ignored the lockfile.');
    expect(f[`${WM}/Flaky test in CI.md`]).toBeUndefined();
    expect(f[`.trash/${WM}/Flaky test in CI.md`]).toBe(files[`${WM}/Flaky test in CI.md`]);
    expect(f[`.trash/${WM}/CI cache key.md`]).toBe(files[`${WM}/CI cache key.md`]);
    expect(f['Notes/Refs.md']).toBe('See [[CI flakiness cache key ignores the lockfile|Flaky test in CI]], [[CI flakiness cache key ignores the lockfile#Seen|seen]], ![[CI flakiness cache key ignores the lockfile]], [[Temp workaround]], [[Try bun]].\n');
    const log = f['Engram/Log/test box 2026-03.md'];
    expect(log).toContain('test · review promote (openai)');
    expect(log).toContain('wrote [[Engram/Projects/engram/CI flakiness cache key ignores the lockfile]]');
    expect(log).toContain('from `Engram/Working memory/Flaky test in CI.md`, `Engram/Working memory/CI cache key.md`');
  });

  it('extend: moves only review_after (comments and quoting kept); delete: to the trash', async () => {
    const { vault, plan, ctx } = await setup();
    await applyProposal(ctx, plan.proposals.find((p) => p.kind === 'extend')!.id);
    await applyProposal(ctx, plan.proposals.find((p) => p.kind === 'delete')!.id);
    const f = vault.snapshot();
    expect(f[`${WM}/Temp workaround.md`]).toBe(files[`${WM}/Temp workaround.md`].replace('"2026-03-01"', '"2026-03-24"'));
    expect(f[`${WM}/Try bun.md`]).toBeUndefined();
    expect(f[`.trash/${WM}/Try bun.md`]).toBe(files[`${WM}/Try bun.md`]);
    expect(plan.proposals.find((p) => p.kind === 'delete')!.reason).toBe('idle idea (1 note links here; those links will point at a note in the trash)');
    expect(f[`${WM}/Locked wm.md`]).toBe(files[`${WM}/Locked wm.md`]);
    const log = f['Engram/Log/test box 2026-03.md'].split('\n').filter((l) => l.startsWith('- '));
    expect(log.filter((l) => l.endsWith(' · started'))).toHaveLength(2);
    expect(log).toHaveLength(4);
  });

  it('the rules backend proposes extend only and calls no model', async () => {
    const vault = new MemoryVault({ files, clock: { now: () => NOW } });
    const catalog = await loadCatalog(vault);
    const plan = await planReview(catalog, settings, { backend: { name: 'rules', model: 'rules', paid: false, complete: () => Promise.reject(new Error('must not be called')) }, now: NOW, horizonDays: 7 });
    expect(plan.proposals.map((p) => p.kind)).toEqual(['extend', 'extend', 'extend']);
    expect(plan.proposals.every((p) => p.backend === 'rules')).toBe(true);
  });

  it('an unusable reply falls back to extend and says why', async () => {
    const { plan } = await setup(() => 'I cannot help with that.');
    expect(plan.proposals.map((p) => p.kind)).toEqual(['extend', 'extend', 'extend']);
    expect(plan.problems).toHaveLength(3);
    expect(plan.problems[0]).toMatch(/no JSON object/);
  });

  it('a reply naming notes outside the group is not trusted', async () => {
    const { plan } = await setup(() => JSON.stringify({ decisions: [{ action: 'delete', notes: ['Notes/Refs.md', `${WM}/Locked wm.md`], reason: 'x' }] }));
    expect(plan.proposals.some((p) => p.kind === 'delete')).toBe(false);
    expect(plan.problems.some((p) => p.includes('names no note of the group'))).toBe(true);
  });

  it('groups due notes that share nothing but meaning (vectors), never across projects', async () => {
    const vault = new MemoryVault({
      files: {
        [`${WM}/A.md`]: '---\nreview_after: 2026-03-01\nproject: p\n---\nOne.\n',
        [`${WM}/B.md`]: '---\nreview_after: 2026-03-02\nproject: p\n---\nTwo.\n',
        [`${WM}/C.md`]: '---\nreview_after: 2026-03-03\nproject: q\n---\nThree.\n',
      },
    });
    const same = new Float32Array([1, 0, 0]);
    const vectors = { vector: (p: string) => (p.endsWith('A.md') || p.endsWith('B.md') || p.endsWith('C.md') ? same : undefined) };
    const plan = await planReview(await loadCatalog(vault), settings, { now: NOW, horizonDays: 0, vectors });
    expect(plan.groups).toEqual([[`${WM}/A.md`, `${WM}/B.md`], [`${WM}/C.md`]]);
    const without = await planReview(await loadCatalog(vault), settings, { now: NOW, horizonDays: 0 });
    expect(without.groups).toHaveLength(3);
  });
});

describe('review plan from the host\'s metadata', () => {
  async function metasOf(vault: MemoryVault): Promise<Map<string, NoteMeta>> {
    const out = new Map<string, NoteMeta>();
    for (const f of await vault.list()) {
      const parsed = parseNote((await vault.read(f.path)).text);
      out.set(f.path, readNoteMeta(f.path, parsed.data ?? {}));
    }
    return out;
  }

  it('plans the same due notes and proposals, and reads no note when nothing is due', async () => {
    const vault = new MemoryVault({ files, clock: { now: () => NOW } });
    const metas = await metasOf(vault);
    const reads: string[] = [];
    const counting = Object.create(vault) as MemoryVault;
    counting.read = (p) => {
      reads.push(p);
      return vault.read(p);
    };
    const opts = { state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } };
    const plain = await new Curation({ ...opts, vault }).reviewPlan({ dueWithinDays: 7 });
    const fromMetas = await new Curation({ ...opts, vault: counting, metas: () => metas }).reviewPlan({ dueWithinDays: 7 });
    expect(fromMetas.due).toEqual(plain.due);
    expect(fromMetas.groups).toEqual(plain.groups);
    expect(fromMetas.proposals.map((p) => p.title)).toEqual(plain.proposals.map((p) => p.title));
    expect(plain.due.map((d) => d.path)).not.toContain(`${WM}/Locked wm.md`);
    // Nothing due: no note is read at all.
    reads.length = 0;
    const none = new Map([...metas].map(([p, m]) => [p, { ...m, reviewAfter: undefined }]));
    const empty = await new Curation({ ...opts, vault: counting, metas: () => none }).reviewPlan({ dueWithinDays: 7 });
    expect(empty.due).toEqual([]);
    expect(reads.filter((p) => p.endsWith('.md'))).toEqual([]);
  });
});
