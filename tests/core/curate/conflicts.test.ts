// Sync conflicts on one vault synced between machines: which files are a sync tool's copies (names as each tool
// really writes them; names people also use count only beside a near-identical note), kept out of recall and curation,
// resolved from the review plan (keep mine, keep theirs, merge both: nothing deleted, the loser in the trash), and a
// curation write that is the same bytes on two devices whatever their clocks.
import { describe, expect, it } from 'vitest';
import { mergeVersions } from '../../../src/core/curate/conflicts';
import { Curation } from '../../../src/core/curate/service';
import { curateSettings } from '../../../src/core/curate/settings';
import { Engine } from '../../../src/core/engine';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { conflictCopy, possibleCopy, sameNoteVersions } from '../../../src/core/note/conflict-copy';
import { parseNote } from '../../../src/core/note/frontmatter';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { NOW, settings } from './fixtures';

// One note edited on two machines before a sync: one line and the tags differ.
const front = (tags: string) => `---\ntype: decision\nproject: app\nsummary: How the app is deployed and where it runs.\ntags: [${tags}]\nupdated: 2026-03-01T10:00:00+01:00\n---\n`;
const body = (n: string) => `Deploys run from the repository root with ./deploy.sh, never from a package folder.\nThe artifact upload is retried ${n}.\nStaging uses spot instances in eu-west-1; production uses reserved ones.\n`;
const note = `${front('deploy')}${body('once')}`;
const theirs = `${front('deploy, ci')}${body('twice')}`;

describe('which files are a sync tool\'s copies', () => {
  it('names only sync tools write are copies whatever their text', () => {
    expect(conflictCopy('N/Meeting notes (Conflicted copy MyMacBook2 202411281430).md')).toMatchObject({ original: 'N/Meeting notes.md' });
    expect(conflictCopy('N/Plan.sync-conflict-20260310-120000-ABCDEFG.md')).toMatchObject({ original: 'N/Plan.md', tool: 'Syncthing' });
    expect(conflictCopy("N/Plan (Jane's conflicted copy 2026-03-10).md")).toMatchObject({ original: 'N/Plan.md' });
    expect(conflictCopy('N/Plan.Conflict.md')).toMatchObject({ original: 'N/Plan.md', tool: 'Resilio Sync' });
    expect(conflictCopy('N/Chapter 2.md')).toBeUndefined();
  });

  it('iCloud, Google Drive and OneDrive names are copies only beside a near-identical note', () => {
    expect(possibleCopy('N/Plan 2.md')).toMatchObject({ original: 'N/Plan.md', tool: 'iCloud Drive' });
    expect(possibleCopy('N/Plan (1).md')).toMatchObject({ original: 'N/Plan.md', tool: 'Google Drive' });
    expect(possibleCopy('N/Les caractères-MacBook Pro de Charlyne-2.md')).toMatchObject({ original: 'N/Les caractères.md', tool: 'OneDrive' });
    expect(possibleCopy('N/Plan 1.md')).toBeUndefined();
    expect(sameNoteVersions(note, theirs)).toBe(true);
    // One long paragraph edited in one place is still one note.
    const para = `${'We keep every deploy reproducible by pinning the toolchain. '.repeat(8)}`;
    expect(sameNoteVersions(para, para.replace('pinning', 'locking'))).toBe(true);
    // Two chapters from one template share their headings and little else.
    const chapter = (n: string, text: string) => `---\ntags: [book]\n---\n# ${n}\n\n## Summary\n\n${text}\n\n## Notes\n\n${text.split(' ').reverse().join(' ')}\n`;
    expect(sameNoteVersions(chapter('Chapter', 'The hero leaves home at dawn and walks north.'), chapter('Chapter', 'A storm wrecks the ship and the crew swims ashore.'))).toBe(false);
    // Engram names its second note of one title `Title 2.md`: a different engram_id is a different note, however alike.
    expect(sameNoteVersions(`---\nengram_id: a1\n---\n${body('once')}`, `---\nengram_id: b2\n---\n${body('once')}`)).toBe(false);
    expect(sameNoteVersions(`---\nengram_id: a1\n---\n${body('once')}`, `---\nengram_id: a1\n---\n${body('twice')}`)).toBe(true);
  });

  it('recall and curation leave out an iCloud copy, and keep a chapter that only shares the name', async () => {
    const vault = new MemoryVault({
      files: {
        'N/Plan.md': note,
        'N/Plan 2.md': theirs,
        'N/Chapter.md': '# Chapter\n\nThe hero leaves home at dawn and walks north.\n',
        'N/Chapter 2.md': '# Chapter\n\nA storm wrecks the quokka ship and the crew swims ashore.\n',
      },
    });
    const engine = new Engine({ ports: { vault, clock: { now: () => NOW }, yieldNow: () => Promise.resolve() }, curation: { state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings } });
    await engine.start();
    expect((await engine.search('artifact upload retried', {})).map((h) => h.path)).toEqual(['N/Plan.md']);
    expect((await engine.search('quokka', {})).map((h) => h.path)).toEqual(['N/Chapter 2.md']);
    // A copy that arrives after its note is judged when it arrives, and again when the note changes.
    vault.externalWrite('N/Chapter (1).md', '# Chapter\n\nThe hero leaves home at dawn and walks north.\n');
    engine.applyChange({ kind: 'create', path: 'N/Chapter (1).md' });
    await engine.settled();
    expect((await engine.search('hero dawn', {})).map((h) => h.path)).toEqual(['N/Chapter.md']);
    const plan = await engine.curation!.reviewPlan();
    expect(plan.conflicts.map((c) => [c.path, c.original, c.tool])).toEqual([
      ['N/Chapter (1).md', 'N/Chapter.md', 'Google Drive'],
      ['N/Plan 2.md', 'N/Plan.md', 'iCloud Drive'],
    ]);
  });
});

describe('resolving a sync conflict from the review plan', () => {
  const copyPath = 'N/Plan.sync-conflict-20260310-120000-ABCDEFG.md';
  const setup = () => {
    const vault = new MemoryVault({ files: { 'N/Plan.md': note, [copyPath]: theirs, 'N/Other.md': 'Links to [[Plan]].\n' }, clock: { now: () => NOW } });
    const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } });
    return { vault, c };
  };

  it('keep mine: the note stays byte for byte, the copy goes to the trash, the log says so', async () => {
    const { vault, c } = setup();
    const [conflict] = (await c.reviewPlan()).conflicts;
    expect(conflict).toMatchObject({ path: copyPath, original: 'N/Plan.md', tool: 'Syncthing', note, copy: theirs });
    expect(Object.keys(conflict.proposals).sort()).toEqual(['merge', 'mine', 'theirs']);
    const [out] = await c.apply([conflict.proposals.mine!.id], { actor: 'cli' });
    expect(out.ok).toBe(true);
    const files = vault.snapshot();
    expect(files['N/Plan.md']).toBe(note);
    expect(files[copyPath]).toBeUndefined();
    expect(files[`.trash/${copyPath}`]).toBe(theirs);
    expect(Object.entries(files).find(([p]) => p.startsWith('Engram/Log/'))![1]).toMatch(/cli · review resolve \(Syncthing\).*keep mine/);
    expect((await c.reviewPlan()).conflicts).toEqual([]);
  });

  it('keep theirs: the copy\'s text becomes the note, the note\'s text is in the trash', async () => {
    const { vault, c } = setup();
    const [conflict] = (await c.reviewPlan()).conflicts;
    expect((await c.apply([conflict.proposals.theirs!.id]))[0].ok).toBe(true);
    const files = vault.snapshot();
    expect(files['N/Plan.md']).toBe(theirs);
    expect(files['.trash/N/Plan.md']).toBe(note);
    expect(files[`.trash/${copyPath}`]).toBe(theirs);
  });

  it('merge both: every line of both versions, valid frontmatter with the lists joined; a stale choice is refused', async () => {
    const { vault, c } = setup();
    const [conflict] = (await c.reviewPlan()).conflicts;
    expect((await c.apply([conflict.proposals.merge!.id]))[0].ok).toBe(true);
    const merged = vault.snapshot()['N/Plan.md'];
    for (const line of [...note.split('\n'), ...theirs.split('\n')].filter((l) => l && l !== '---' && !l.startsWith('updated:') && !l.startsWith('tags:'))) expect(merged).toContain(line);
    expect(parseNote(merged).data).toMatchObject({ tags: ['deploy', 'ci'], updated: '2026-03-01T10:00:00+01:00' });
    expect(merged.match(/Deploys run from the repository root/g)).toHaveLength(1);
    expect(vault.snapshot()['.trash/N/Plan.md']).toBe(note);
    // The other choices of the same conflict are stale now: refused, nothing changed.
    const before = vault.snapshot();
    const [refused] = await c.apply([conflict.proposals.mine!.id]);
    expect(refused.ok).toBe(false);
    expect(vault.snapshot()).toEqual(before);
  });

  it('a copy whose note is gone offers only to keep it as the note', async () => {
    const vault = new MemoryVault({ files: { [copyPath]: theirs } });
    const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } });
    const [conflict] = (await c.reviewPlan()).conflicts;
    expect(Object.keys(conflict.proposals)).toEqual(['theirs']);
    await c.apply([conflict.proposals.theirs!.id]);
    expect(vault.snapshot()['N/Plan.md']).toBe(theirs);
  });

  it('mergeVersions keeps the note\'s frontmatter when the copy has none, and loses no body line', () => {
    const first = body('once').split('\n')[0];
    expect(mergeVersions(note, `${first}\nA new line.\n`)).toBe(`${note}A new line.\n`);
  });
});

describe('the same curation on two devices', () => {
  it('a merge applied on both, at different times, writes the same bytes (dated by the notes, not the clock)', async () => {
    const files = {
      'a/Deploy from root.md': '---\ntags: [x]\nupdated: 2026-02-01T09:00:00+01:00\nengram_id: d1\n---\nThe deploy script must run from the repository root directory.\n',
      'a/Deploy from the root.md': '---\ntags: [y]\nupdated: 2026-02-03T18:30:00-05:00\n---\nThe deploy script must run from the repository root directory!\nIt reads config.json from there.\n',
      'a/Index.md': 'See [[Deploy from the root]].\n',
    };
    const device = async (now: number, name: string) => {
      const vault = new MemoryVault({ files, clock: { now: () => now } });
      const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings: curateSettings({ device: name, actor: 'cli' }), clock: { now: () => now } });
      const p = await c.proposeMerge(['a/Deploy from root.md', 'a/Deploy from the root.md']);
      expect((await c.apply([p.id]))[0].ok).toBe(true);
      return Object.fromEntries(Object.entries(vault.snapshot()).filter(([k]) => !k.startsWith('Engram/Log/')));
    };
    const [a, b] = [await device(NOW, 'laptop-aaaaaa'), await device(NOW + 3 * 86_400_000 + 12_345, 'desktop-bbbbbb')];
    expect(a).toEqual(b);
    const kept = Object.entries(a).find(([p, t]) => !p.startsWith('.trash/') && t.includes('config.json'))!;
    expect(kept[1]).toContain('updated: 2026-02-03T18:30:00-05:00');
  });
});
