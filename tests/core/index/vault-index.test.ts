import { describe, expect, it } from 'vitest';
import { EngramError } from '../../../src/core/errors.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { FlakyVault, NOW, fixedClock, noYield, note } from '../../helpers/index-fixtures.js';

const DAY = 86_400_000;
const iso = (t: number): string => new Date(t).toISOString();

function vaultFiles(): Record<string, string> {
  return {
    'Engram/Inbox/Use a Unix socket for the sidecar.md': note(
      { type: 'decision', scope: 'project', project: 'engram', summary: 'The daemon listens on a Unix socket, never TCP', tags: ['ipc', 'security'], created: iso(NOW - 2 * DAY) },
      'We picked a socket in a 0700 folder.',
    ),
    'Engram/Inbox/Orama persistence fails at scale.md': note(
      { type: 'problem', scope: 'general', summary: 'JSON persistence hits the string length limit', tags: ['orama'], created: iso(NOW - 40 * DAY) },
      'Saving 50k documents throws RangeError: Invalid string length.',
    ),
    'Engram/Working memory/Try chokidar polling.md': note(
      { type: 'insight', scope: 'project', project: 'other', review_after: '2026-04-01', tags: ['watcher'], created: iso(NOW - 10 * DAY) },
      'Polling helps on network drives; the sidecar watcher may need it.',
    ),
    'Notes/Gardening.md': '# Gardening\n\nTomatoes need sun. The socket wrench is in the shed.',
  };
}

async function built(files = vaultFiles()): Promise<VaultIndex> {
  const index = new VaultIndex({ vault: new MemoryVault({ files, clock: fixedClock(NOW - 100 * DAY) }), clock: fixedClock(), yieldNow: noYield });
  await index.build();
  return index;
}

describe('VaultIndex: build and BM25 search', () => {
  it('indexes every note and ranks a title/summary match above a passing body mention', async () => {
    const index = await built();
    expect(index.stats()).toMatchObject({ notes: 4, mode: 'bm25' });
    const r = await index.search('socket');
    expect(r.mode).toBe('bm25');
    expect(r.notices.join(' ')).toMatch(/BM25/);
    expect(r.hits.map((h) => h.path)).toEqual(['Engram/Inbox/Use a Unix socket for the sidecar.md', 'Notes/Gardening.md']);
    expect(r.hits[0].why.join('; ')).toMatch(/title: socket/);
    expect(r.hits[0]).toMatchObject({ type: 'decision', project: 'engram', summary: 'The daemon listens on a Unix socket, never TCP' });
  });

  it('stems English words and natural-language questions still match', async () => {
    const index = await built();
    const r = await index.search('What did we decide about saving documents?');
    expect(r.hits[0].path).toBe('Engram/Inbox/Orama persistence fails at scale.md');
  });

  it('filters by type, scope, project, durability, folder, tags and dates', async () => {
    const index = await built();
    const paths = async (o: Parameters<VaultIndex['search']>[1]): Promise<string[]> => (await index.search('sidecar socket watcher orama', o)).hits.map((h) => h.path).sort();
    expect(await paths({ types: ['decision'] })).toEqual(['Engram/Inbox/Use a Unix socket for the sidecar.md']);
    expect(await paths({ scope: 'general' })).toEqual(['Engram/Inbox/Orama persistence fails at scale.md']);
    expect(await paths({ projects: ['Other'] })).toEqual(['Engram/Working memory/Try chokidar polling.md']);
    expect(await paths({ durability: 'working' })).toEqual(['Engram/Working memory/Try chokidar polling.md']);
    expect(await paths({ folders: ['Notes'] })).toEqual(['Notes/Gardening.md']);
    expect(await paths({ tags: ['#orama'] })).toEqual(['Engram/Inbox/Orama persistence fails at scale.md']);
    expect(await paths({ since: NOW - 15 * DAY, folders: ['Engram'] })).toEqual([
      'Engram/Inbox/Use a Unix socket for the sidecar.md',
      'Engram/Working memory/Try chokidar polling.md',
    ]);
    expect(await paths({ until: NOW - 30 * DAY, folders: ['Engram'] })).toEqual(['Engram/Inbox/Orama persistence fails at scale.md']);
  });

  it('turns time phrases into date filters with the clock', async () => {
    const index = await built();
    const r = await index.search('sidecar last week');
    expect(r.timeFilter?.phrase).toBe('last week');
    expect(r.hits.map((h) => h.path)).toEqual(['Engram/Inbox/Use a Unix socket for the sidecar.md']);
    const onlyTime = await index.search('yesterday');
    expect(onlyTime.hits).toEqual([]);
    const march = await index.search('in March');
    expect(march.hits.map((h) => h.path)).toContain('Engram/Working memory/Try chokidar polling.md');
    // Nothing that old: the words still count, and the result says the date was dropped.
    const dec = await index.search('unix socket in January');
    expect(dec.hits[0].path).toBe('Engram/Inbox/Use a Unix socket for the sidecar.md');
    expect(dec.notices[0]).toBe('nothing matched "in January"; showing results from any date');
    const off = await index.search('socket yesterday', { timePhrases: false });
    expect(off.timeFilter).toBeUndefined();
    expect(off.hits[0].path).toBe('Engram/Inbox/Use a Unix socket for the sidecar.md');
  });

  it('chunks long notes by heading and quotes the best chunk', async () => {
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12);
    const long = `# Handbook\n\n## Onboarding\n\n${filler}\n\n## Deployment\n\nWe deploy with blue-green switches on Fridays.\n${filler}\n\n## Retro\n\n${filler}`;
    const index = await built({ 'Handbook.md': long, 'Other.md': 'nothing to see' });
    expect(index.stats().chunks).toBeGreaterThan(2);
    const r = await index.search('blue-green');
    expect(r.hits).toHaveLength(1);
    // The heading path, so a reader sees where in the note the passage sits.
    expect(r.hits[0].heading).toBe('Handbook > Deployment');
    expect(r.hits[0].snippet).toMatch(/blue-green/);
  });

  it('update() makes a new note searchable; remove and rename follow', async () => {
    const vault = new MemoryVault({ files: vaultFiles() });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    await vault.create('Engram/Inbox/Quokka.md', 'The quokka ledger format.');
    // How fast is a figure (`npm run bench -- index`: update then search, target < 50 ms).
    await index.update('Engram/Inbox/Quokka.md');
    const r = await index.search('quokka');
    expect(r.hits[0].path).toBe('Engram/Inbox/Quokka.md');
    await vault.rename('Engram/Inbox/Quokka.md', 'Engram/Inbox/Marsupial.md');
    await index.apply({ kind: 'rename', path: 'Engram/Inbox/Marsupial.md', oldPath: 'Engram/Inbox/Quokka.md' });
    expect((await index.search('quokka')).hits.map((h) => h.path)).toEqual(['Engram/Inbox/Marsupial.md']);
    await index.apply({ kind: 'delete', path: 'Engram/Inbox/Marsupial.md' });
    expect((await index.search('quokka')).hits).toEqual([]);
  });

  it('accepts any query string and explains an empty one', async () => {
    const index = await built();
    for (const q of ['"unix socket"', 'socket AND (tcp OR NOT ipc)', 'socket*', '🚀 socket 🔥', 'socket c++ -> <script>', "sidecar's socket"]) {
      const r = await index.search(q);
      expect(r.hits[0]?.path, q).toBe('Engram/Inbox/Use a Unix socket for the sidecar.md');
    }
    const pasted = 'Error: connect ECONNREFUSED socket '.repeat(300);
    expect(pasted.length).toBeGreaterThan(10_000);
    expect((await index.search(pasted)).hits[0].path).toBe('Engram/Inbox/Use a Unix socket for the sidecar.md');
    const emoji = await index.search('🚀🔥');
    expect(emoji.hits).toEqual([]);
    expect(emoji.notices.join(' ')).toMatch(/no searchable words/);
    const err = (await index.search('   ').catch((e: unknown) => e)) as EngramError;
    expect(err).toBeInstanceOf(EngramError);
    expect(err.code).toBe('usage');
    expect(err.message).toMatch(/empty/);
  });

  it('reports and skips unreadable notes; indexes notes with broken frontmatter by their text', async () => {
    const vault = new FlakyVault({ files: { ...vaultFiles(), 'Broken.md': '---\ntitle: [unclosed\n---\nzebra crossing' } });
    vault.failing.add('Notes/Gardening.md');
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    const report = await index.build();
    expect(report.skipped).toEqual([{ path: 'Notes/Gardening.md', reason: expect.stringMatching(/EACCES/) as string }]);
    expect(report.problems.map((p) => p.path)).toEqual(['Broken.md']);
    expect(index.stats().notes).toBe(4);
    expect((await index.search('zebra')).hits[0].path).toBe('Broken.md');
  });

  it('expands along wikilinks and backlinks, marking the hits it added', async () => {
    const index = await built({
      'Hub.md': 'The pelican project. See [[Spoke A]].',
      'Spoke A.md': 'Details about wings. Next: [[Spoke B|b]]',
      'Spoke B.md': 'Feathers.',
      'Fan.md': 'I like [[Hub]].',
    });
    const one = await index.search('pelican', { expandLinks: 1 });
    expect(one.hits[0].path).toBe('Hub.md');
    const added = one.hits.slice(1);
    expect(added.map((h) => h.path).sort()).toEqual(['Fan.md', 'Spoke A.md']);
    expect(added.every((h) => h.via === 'Hub.md')).toBe(true);
    expect(added.find((h) => h.path === 'Fan.md')?.why.join(' ')).toMatch(/links to \[\[Hub\]\]/);
    const two = await index.search('pelican', { expandLinks: 2 });
    expect(two.hits.map((h) => h.path)).toContain('Spoke B.md');
    expect((await index.search('pelican')).hits).toHaveLength(1);
    // A hidden note (a private one, for an agent) is neither added nor walked through to what it links.
    const hidden = (p: string): boolean => p === 'Spoke A.md';
    const shut = await index.search('pelican', { expandLinks: 2, hidden });
    expect(shut.hits.map((h) => h.path).sort()).toEqual(['Fan.md', 'Hub.md']);
  });

  it('collapses near-duplicates and prefers recent, confident, current notes only gently', async () => {
    const body = 'Restart the watcher after a rename storm.';
    const index = await built({
      'A.md': note({ created: iso(NOW - DAY) }, body),
      'B.md': note({ created: iso(NOW - 300 * DAY) }, body),
      'Old.md': note({ created: iso(NOW - 400 * DAY), superseded_by: '"[[A]]"' }, 'Restart the watcher, every time, after renames.'),
    });
    const r = await index.search('restart watcher rename');
    expect(r.hits.map((h) => h.path)).toEqual(['A.md', 'Old.md']);
    expect(r.hits[0].why.join(' ')).toMatch(/near-duplicate collapsed: \[\[B\]\]/);
    expect(r.hits[1].why).toContain('superseded');
  });
});

describe('VaultIndex: asking for a note by name', () => {
  it('puts the exactly named note first even when other titles stem the same', async () => {
    const index = new VaultIndex({
      vault: new MemoryVault({
        files: {
          'Math/Quadratic Reciprocal.md': 'The quadratic reciprocal function: 1 over a quadratic. Reciprocal graphs, quadratic roots.',
          'Math/Quadratic Reciprocal with no root.md': 'A quadratic reciprocal whose quadratic has no root.',
          'Math/Quadratic Reciprocity.md': 'A theorem on solvability of quadratic equations modulo primes.',
        },
      }),
      clock: fixedClock(),
      yieldNow: noYield,
    });
    await index.build();
    const r = await index.search('quadratic reciprocity');
    expect(r.hits[0].path).toBe('Math/Quadratic Reciprocity.md');
    expect(r.hits[0].why).toContain('exact title');
  });
});

describe('VaultIndex: caches follow changes', () => {
  it('filters and link expansion stay right across updates, removals and compaction', async () => {
    const files: Record<string, string> = { 'Hub.md': 'pelican [[Spoke]]', 'Spoke.md': 'wings', 'P/Other.md': 'pelican too' };
    const vault = new MemoryVault({ files });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    expect((await index.search('pelican', { folders: ['P'] })).hits.map((h) => h.path)).toEqual(['P/Other.md']);
    expect((await index.search('pelican', { expandLinks: 1 })).hits.map((h) => h.path)).toContain('Spoke.md');
    for (let i = 0; i < 300; i++) index.updateText(`P/N${i}.md`, `pelican number ${i}`);
    for (let i = 0; i < 300; i++) index.remove(`P/N${i}.md`);
    index.snapshot(); // compacts: every slot is renumbered
    expect((await index.search('pelican', { folders: ['P'] })).hits.map((h) => h.path)).toEqual(['P/Other.md']);
    const r = await index.search('pelican', { expandLinks: 1, limit: 5 });
    expect(r.hits.find((h) => h.path === 'Spoke.md')?.via).toBe('Hub.md');
  });
});
