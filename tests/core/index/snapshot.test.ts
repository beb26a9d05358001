import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { decodeSnapshot, encodeSnapshot, runSync, unpackSnapshot } from '../../../src/core/index/snapshot.js';
import { TextIndex } from '../../../src/core/index/text-index.js';
import { CountingEmbedder, fixedClock, noYield, note } from '../../helpers/index-fixtures.js';

function files(n = 40): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    out[`Notes/Note ${i}.md`] = note({ type: i % 2 ? 'decision' : 'insight', tags: [`t${i % 5}`] }, `Body of note ${i} about topic${i % 7} and widget${i}.`);
  }
  out['Notes/Long.md'] = `# Long\n\n## Part one\n\n${'alpha beta gamma. '.repeat(120)}\n\n## Part two\n\n${'delta epsilon zeta. '.repeat(120)}`;
  return out;
}

async function setup(embedder = new CountingEmbedder()) {
  const vault = new MemoryVault({ files: files() });
  const index = new VaultIndex({ vault, embedder, clock: fixedClock(), yieldNow: noYield });
  await index.build();
  return { vault, index, embedder };
}

const paths = async (i: VaultIndex, q: string) => (await i.search(q, { limit: 50 })).hits.map((h) => `${h.path} ${h.score}`);

describe('index snapshot', () => {
  it('round-trips: a loaded snapshot answers exactly like the index that wrote it, with no re-embedding', async () => {
    const { vault, index, embedder } = await setup();
    const bytes = index.snapshot();
    expect(VaultIndex.inspectSnapshot(bytes)).toMatchObject({ modelId: 'test/bow-hash', dimension: 64, notes: 41 });
    const again = new CountingEmbedder();
    const loaded = new VaultIndex({ vault, embedder: again, clock: fixedClock(), yieldNow: noYield });
    const report = await loaded.open(bytes);
    expect(report).toMatchObject({ loaded: true, indexed: 0, removed: 0, unchanged: 41, embedded: 0, reembedAll: false });
    expect(again.texts).toBe(0);
    for (const q of ['widget7', 'topic3 decision', 'epsilon', 'alpha gamma']) expect(await paths(loaded, q)).toEqual(await paths(index, q));
    expect(loaded.stats()).toEqual(index.stats());
    expect(embedder.texts).toBeGreaterThan(0);
  });

  it('re-indexes only notes changed since, drops deleted and renamed ones, embeds only what changed', async () => {
    const { vault, index } = await setup();
    const bytes = index.snapshot();
    vault.externalWrite('Notes/Note 3.md', 'Rewritten: the zeppelin plan.');
    vault.externalDelete('Notes/Note 4.md');
    await vault.rename('Notes/Note 5.md', 'Notes/Renamed.md');
    const emb = new CountingEmbedder();
    const loaded = new VaultIndex({ vault, embedder: emb, clock: fixedClock(), yieldNow: noYield });
    const report = await loaded.open(bytes);
    expect(report).toMatchObject({ loaded: true, indexed: 2, removed: 2 });
    expect(emb.texts).toBe(2);
    expect((await loaded.search('zeppelin', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(['Notes/Note 3.md']);
    expect(loaded.has('Notes/Note 4.md')).toBe(false);
    expect(loaded.has('Notes/Note 5.md')).toBe(false);
    expect((await loaded.search('widget5', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(['Notes/Renamed.md']);
  });

  it('weighs a list of links down alike in the index that wrote it and in one loaded from its snapshot', async () => {
    // The same words twice: once as links to other notes (a hub), once as plain list items.
    const vault = new MemoryVault({ files: {
      'Hub.md': '- [[Sourdough starter feeding]]\n- [[Sourdough hydration]]\n- [[Sourdough crumb]]\n',
      'List.md': '- Sourdough starter feeding\n- Sourdough hydration\n- Sourdough crumb\n',
    } });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const loaded = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await loaded.open(index.snapshot());
    const q = 'sourdough starter feeding hydration crumb';
    for (const i of [index, loaded]) {
      const score = new Map((await i.search(q, { limit: 5, mode: 'bm25' })).hits.map((h) => [h.path, h.score]));
      expect(score.get('Hub.md')!).toBeLessThan(score.get('List.md')! * 0.75);
    }
    expect(await paths(loaded, q)).toEqual(await paths(index, q));
  });

  it('detects truncated, corrupted and foreign snapshots and rebuilds instead of trusting them', async () => {
    const { vault, index } = await setup();
    const bytes = index.snapshot();
    const flipped = bytes.slice();
    flipped[Math.floor(bytes.length / 2)] ^= 0x40;
    const cases: [string, Uint8Array, RegExp][] = [
      ['truncated', bytes.slice(0, bytes.length - 100), /damaged/],
      ['one bit flipped', flipped, /checksum/],
      ['foreign', new TextEncoder().encode('{"some":"json file"}'.repeat(10)), /not an Engram index snapshot/],
      ['empty', new Uint8Array(0), /no snapshot/],
    ];
    for (const [what, b, reason] of cases) {
      const i = new VaultIndex({ vault, embedder: new CountingEmbedder(), clock: fixedClock(), yieldNow: noYield });
      const r = await i.open(b);
      expect(r.loaded, what).toBe(false);
      expect(r.reason, what).toMatch(reason);
      expect(r.indexed, what).toBe(41);
      expect((await i.search('widget9')).hits[0].path, what).toBe('Notes/Note 9.md');
    }
  });

  it('re-embeds everything when the model changed, and keeps BM25 working meanwhile', async () => {
    const { vault, index } = await setup();
    const bytes = index.snapshot();
    const other = new CountingEmbedder('test/other-model', 32);
    const i = new VaultIndex({ vault, embedder: other, clock: fixedClock(), yieldNow: noYield });
    const r = await i.open(bytes);
    expect(r).toMatchObject({ loaded: true, reembedAll: true, indexed: 0 });
    const chunks = index.stats().chunks;
    expect(other.texts).toBe(chunks);
    expect(i.stats()).toMatchObject({ model: 'test/other-model', dimension: 32, vectors: chunks, pendingEmbeddings: 0 });
  });

  it('a BM25-only snapshot loads without a model and says search is keyword-only', async () => {
    const vault = new MemoryVault({ files: files() });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const i = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    expect((await i.open(index.snapshot())).loaded).toBe(true);
    const r = await i.search('widget1');
    expect(r.mode).toBe('bm25');
    expect(r.hits[0].path).toBe('Notes/Note 1.md');
  });

  it('incremental updates after a load, then a second snapshot, stay consistent (compaction included)', async () => {
    const { vault, index } = await setup();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 40; i++) {
        vault.externalWrite(`Notes/Note ${i}.md`, `Round ${round} text r${round}n${i}.`);
        await index.update(`Notes/Note ${i}.md`);
      }
    }
    await index.embedPending();
    const loaded = new VaultIndex({ vault, embedder: new CountingEmbedder(), clock: fixedClock(), yieldNow: noYield });
    const r = await loaded.open(index.snapshot());
    expect(r).toMatchObject({ loaded: true, indexed: 0 });
    expect((await loaded.search('r2n17', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(['Notes/Note 17.md']);
    expect((await loaded.search('r1n17', { mode: 'bm25' })).hits).toEqual([]);
    // Notes/Long.md's two 2,160-character sections are two passages each (bounded passages, issue 21).
    expect(loaded.stats()).toMatchObject({ notes: 41, chunks: 44, vectors: 44, pendingEmbeddings: 0 });
  });

  it('embeds an updated note in the background; a replayed unchanged note costs nothing', async () => {
    const { vault, index, embedder } = await setup();
    const before = embedder.texts;
    index.updateText('Notes/Note 1.md', (await vault.read('Notes/Note 1.md')).text);
    await index.idle();
    expect(embedder.texts).toBe(before);
    vault.externalWrite('Notes/Note 1.md', 'A walrus appeared.');
    await index.update('Notes/Note 1.md');
    expect((await index.search('walrus', { mode: 'bm25' })).hits[0].path).toBe('Notes/Note 1.md');
    await index.idle();
    expect(embedder.texts).toBe(before + 1);
    expect(index.stats()).toMatchObject({ pendingEmbeddings: 0, vectors: index.stats().chunks });
  });

  it('notes still waiting for vectors when the snapshot was saved are embedded after the next load', async () => {
    const vault = new MemoryVault({ files: files() });
    const emb = new CountingEmbedder();
    const index = new VaultIndex({ vault, embedder: emb, autoEmbed: false, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    vault.externalWrite('Notes/Note 2.md', 'Changed while the model was busy.');
    await index.update('Notes/Note 2.md');
    expect(index.stats().pendingEmbeddings).toBe(1);
    const again = new CountingEmbedder();
    const loaded = new VaultIndex({ vault, embedder: again, clock: fixedClock(), yieldNow: noYield });
    const r = await loaded.open(index.snapshot());
    expect(r).toMatchObject({ loaded: true, indexed: 0, embedded: 1 });
    expect(loaded.stats()).toMatchObject({ pendingEmbeddings: 0, vectors: loaded.stats().chunks });
  });

  it('the file a host writes is packed: a fraction of the raw size, loading to the same answers', async () => {
    const { vault, index } = await setup();
    const raw = index.snapshot();
    const packed = await index.snapshotAsync();
    expect(new TextDecoder().decode(packed.subarray(0, 8))).toBe('ENGRAMIZ');
    expect(packed.length).toBeLessThan(raw.length / 2);
    const loaded = new VaultIndex({ vault, embedder: new CountingEmbedder(), clock: fixedClock(), yieldNow: noYield });
    expect(await loaded.open(packed)).toMatchObject({ loaded: true, indexed: 0, unchanged: 41 });
    for (const q of ['widget7', 'topic3 decision', 'epsilon', 'alpha gamma']) expect(await paths(loaded, q)).toEqual(await paths(index, q));
    // The sync reader names the step it lacks rather than misreading the deflated bytes.
    expect(() => VaultIndex.inspectSnapshot(packed)).toThrow(/unpacked first/);
  });

  it('refuses a packed snapshot of another format, or one whose deflated data is damaged, and rebuilds', async () => {
    const { vault, index } = await setup();
    const packed = await index.snapshotAsync();
    const older = packed.slice();
    new DataView(older.buffer).setUint32(8, 6, true);
    const flipped = packed.slice();
    for (let i = 40; i < 60; i++) flipped[i] ^= 0x5a;
    const cases: [string, Uint8Array, RegExp][] = [
      ['format 6', older, /format 6 is not/],
      ['damaged', flipped, /damaged/],
      ['truncated', packed.slice(0, Math.floor(packed.length / 2)), /damaged/],
    ];
    for (const [what, b, reason] of cases) {
      const i = new VaultIndex({ vault, embedder: new CountingEmbedder(), clock: fixedClock(), yieldNow: noYield });
      const r = await i.open(b);
      expect(r.loaded, what).toBe(false);
      expect(r.reason, what).toMatch(reason);
      expect((await i.search('widget9')).hits[0].path, what).toBe('Notes/Note 9.md');
    }
  });

  it('keeps the boilerplate line counts: a loaded index leaves a footer out at once', async () => {
    const footer = 'Made with the Community Template — star the repository and share it with friends';
    const all = files();
    for (let i = 0; i < 12; i++) all[`Notes/Note ${i}.md`] += `\n\n${footer}\n`;
    const vault = new MemoryVault({ files: all });
    const index = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const snippet = async (i: VaultIndex) => (await i.search('widget3', { mode: 'bm25' })).hits[0].snippet;
    expect(await snippet(index)).not.toContain('Community Template');
    const packed = await index.snapshotAsync();
    for (const [what, bytes] of [['packed', packed], ['raw', await unpackSnapshot(packed)]] as const) {
      const loaded = new VaultIndex({ vault, clock: fixedClock(), yieldNow: noYield });
      expect(await loaded.open(bytes), what).toMatchObject({ loaded: true, indexed: 0 });
      expect(await snippet(loaded), what).toBe(await snippet(index));
      // The counts are the notes' own: with most of them gone the footer is no longer common, and shows again.
      for (let i = 4; i < 12; i++) loaded.remove(`Notes/Note ${i}.md`);
      expect(await snippet(loaded), what).toContain('Community Template');
    }
  });

  it('reads back passage text of many pieces whole: characters of two, three and four bytes across the cuts', () => {
    const text = new TextIndex();
    const words = ['café', 'naïve', '日本語の文章', 'emoji 😀🎉', 'plain words here', 'Ωμέγα', '\u2028sep'];
    for (let n = 0; n < 60; n++) {
      const chunks = Array.from({ length: 5 }, (_, c) => ({ text: Array.from({ length: 400 }, (_, i) => words[(n + c + i) % words.length]).join(' ') }));
      text.add({ path: `n${n}.md`, title: `n${n}`, folder: '', hash: `${n}`, mtime: 0, size: 0, working: false, tags: [], time: 0, superseded: false, links: [], dupKey: `${n}`, beat: false }, chunks);
    }
    const loaded = new TextIndex();
    runSync(decodeSnapshot(runSync(encodeSnapshot(text, null, null)), loaded));
    // Over 600,000 characters: decoded in several pieces of 256 KB, cut between characters.
    expect(text.chunkText.join('').length).toBeGreaterThan(600_000);
    expect(loaded.chunkText).toEqual(text.chunkText.slice(0, text.chunkCount));
    expect(loaded.lines.a).toEqual(text.lines.a);
  });
});
