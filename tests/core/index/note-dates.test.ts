// Time filters, time phrases and the recency prior read the dates people write (frontmatter keys, a date in the file
// name) before the file's own time: in a copied or synced vault every file is new, but its notes are not.
import { describe, expect, it } from 'vitest';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { dateFromFileName, readNoteMeta } from '../../../src/core/note/meta.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { Engine } from '../../../src/core/engine.js';
import { systemClock } from '../../../src/core/ports.js';

// The vault was copied a moment ago: every file time is now.
const NOW = Date.parse('2026-03-18T12:00:00Z');
const FILES: Record<string, string> = {
  'Notes/Date key.md': '---\ndate: 2021-01-05\n---\nkiwi fruit from the date key.\n',
  'Notes/Created key.md': '---\ncreated: 2021-02-06T10:00:00Z\n---\nkiwi fruit from the created key.\n',
  'Notes/Updated key.md': '---\ncreated: 2020-01-01\nupdated: 2021-03-07\n---\nkiwi fruit from the updated key.\n',
  'Notes/Cyberbrain.md': '---\ncb_created: 2021-04-08T09:00:00Z\ncb_modified: 2021-04-09T09:00:00Z\n---\nkiwi fruit from cyberbrain keys.\n',
  'Daily/2021-05-10.md': 'kiwi fruit in a daily note.\n',
  'Zettel/202106111513 - Kiwi.md': 'kiwi fruit in a zettel.\n',
  'Notes/Template.md': '---\ncreated: "{{date}}"\ndate: null\n---\nkiwi fruit in an undated template.\n',
};

describe('dates users write', () => {
  it('reads date keys and file-name dates, in that order, before the file time', () => {
    const t = (p: string) => {
      const m = readNoteMeta(p, {});
      return m.created;
    };
    expect(t('Daily/2024-03-01.md')).toBe(Date.UTC(2024, 2, 1));
    expect(t('Zettel/202211141513 - Title.md')).toBe(Date.UTC(2022, 10, 14, 15, 13));
    expect(t('20221114.md')).toBe(Date.UTC(2022, 10, 14));
    expect(t('2024-03-01 Standup.md')).toBe(Date.UTC(2024, 2, 1));
    for (const p of ['2023-02-30.md', '1234 notes.md', '2024 goals.md', '20221314.md', '12345678901.md', 'Release 2024-03-01.md']) expect(dateFromFileName(p), p).toBeUndefined();
    expect(readNoteMeta('2024-03-01.md', { date: '2020-01-01' }).created).toBe(Date.parse('2020-01-01'));
  });

  it('since/until filters, time phrases and "recent" use those dates, not the copy time', async () => {
    const vault = new MemoryVault({ files: FILES });
    const index = new VaultIndex({ vault, clock: { now: () => NOW }, yieldNow: () => Promise.resolve() });
    await index.build();
    const paths = async (opts: Parameters<VaultIndex['search']>[1]) => (await index.search('kiwi fruit', { limit: 20, mode: 'bm25', ...opts })).hits.map((h) => h.path).sort();
    expect(await paths({ since: Date.parse('2021-01-01'), until: Date.parse('2021-12-31') })).toEqual(
      ['Daily/2021-05-10.md', 'Notes/Created key.md', 'Notes/Cyberbrain.md', 'Notes/Date key.md', 'Notes/Updated key.md', 'Zettel/202106111513 - Kiwi.md'],
    );
    expect(await paths({ since: Date.parse('2021-03-01'), until: Date.parse('2021-04-30') })).toEqual(['Notes/Cyberbrain.md', 'Notes/Updated key.md']);
    // A phrase in the question leaves out the notes dated outside it, ranks the notes dated within it first, and keeps
    // a note whose only date is its file's (the copy time says nothing of when it was written).
    expect((await index.search('kiwi fruit in may 2021', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(['Daily/2021-05-10.md', 'Notes/Template.md']);
    const all = (await index.search('kiwi fruit', { limit: 20, mode: 'bm25' })).hits;
    expect(all.filter((h) => h.why.includes('recent')).map((h) => h.path)).toEqual(['Notes/Template.md']);
  });

  it('SessionStart lists a project\'s notes newest first by the dates they carry', async () => {
    const vault = new MemoryVault({
      files: {
        'P/2021-05-10 Old.md': '---\nproject: acme\n---\nold.\n',
        'P/Newer.md': '---\nproject: acme\ndate: 2022-01-01\n---\nnewer.\n',
        'P/Newest.md': '---\nproject: acme\ncb_modified: 2023-01-01T00:00:00Z\n---\nnewest.\n',
      },
    });
    const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() } });
    await engine.start();
    const r = await engine.context({ event: 'SessionStart', sessionId: 's', project: 'acme', maxChars: 4000, maxItems: 8 });
    expect(r.items.map((i) => i.path)).toEqual(['P/Newest.md', 'P/Newer.md', 'P/2021-05-10 Old.md']);
  });
});

describe('a time phrase in a question', () => {
  it('finds a note dated only by its file, while explicit since/until still filter by any date', async () => {
    const vault = new MemoryVault({
      files: {
        'References/Catan.md': '---\ncategories:\n  - "[[Board games]]"\nrating: 7\nlast: 2023-09-01\n---\n',
        'Daily/2023-09-03.md': 'Game night: we played a board game with friends until late.\n',
        'Daily/2023-03-05.md': 'We played a board game with the neighbours.\n',
      },
    });
    const index = new VaultIndex({ vault, clock: { now: () => NOW }, yieldNow: () => Promise.resolve() });
    await index.build();
    const r = await index.search('which board game did I last play in September 2023', { mode: 'bm25' });
    expect(r.timeFilter?.phrase).toBe('in September 2023');
    const got = r.hits.map((h) => h.path);
    expect(got).toContain('References/Catan.md');
    // The March note has a date of its own, outside the phrase: left out.
    expect(got).not.toContain('Daily/2023-03-05.md');
    const sept = { since: Date.parse('2023-09-01'), until: Date.parse('2023-09-30') };
    expect((await index.search('board game played', { mode: 'bm25', ...sept })).hits.map((h) => h.path)).toEqual(['Daily/2023-09-03.md']);
  });

  it('a date among a file-dated note\'s other properties answers a time phrase, ranked up, never left out', async () => {
    const game = (last: string, review = ''): string => `---\ncategories:\n  - "[[Board games]]"\nrating: 7\nlast: ${last}\n${review}---\n`;
    const vault = new MemoryVault({
      files: {
        'References/Catan.md': game('2023-09-01'),
        'References/Azul.md': game('2022-05-01', 'review_after: 2023-09-20\n'),
        'References/Board games.md': '---\ntags: [categories]\n---\nBoard games I own.\n',
      },
    });
    const index = new VaultIndex({ vault, clock: { now: () => NOW }, yieldNow: () => Promise.resolve() });
    await index.build();
    const got = (await index.search('which board game did I last play in September 2023', { mode: 'bm25' })).hits.map((h) => h.path);
    // Catan was last played then; the category note says more of the words but is dated only by its file.
    expect(got[0]).toBe('References/Catan.md');
    // A property may tell something else than when the note's subject happened: a date outside the phrase keeps the note.
    expect(got).toContain('References/Azul.md');
    // A reminder's date is not when: Azul's review_after in September 2023 does not rank it up.
    expect(got.indexOf('References/Azul.md')).toBeGreaterThan(got.indexOf('References/Board games.md'));
    const loaded = new VaultIndex({ vault, clock: { now: () => NOW }, yieldNow: () => Promise.resolve() });
    await loaded.loadSnapshotAsync(await index.snapshotAsync());
    expect((await loaded.search('which board game did I last play in September 2023', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(got);
  });
});
