// A snapshot saved after edits, deletes and renames must load into an index that answers exactly as a fresh build of
// the same vault does, with and without vectors (the default BM25-only host once reloaded postings onto wrong notes).
import { describe, expect, it } from 'vitest';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { rng } from '../../../src/core/rng.js';
import { CountingEmbedder, fixedClock, noYield, note } from '../../helpers/index-fixtures.js';

const WORDS = ['socket', 'parser', 'widget', 'token', 'cache', 'deploy', 'schema', 'vault', 'retry', 'timeout', 'lambda', 'queue'];

function body(r: () => number, id: string): string {
  const pick = (): string => WORDS[Math.floor(r() * WORDS.length)];
  const words = Array.from({ length: 4 + Math.floor(r() * 12) }, pick).join(' ');
  return `Note ${id} says ${words}; unique${id} marker.`;
}

function noteText(r: () => number, id: string): string {
  return note({ type: r() < 0.5 ? 'decision' : 'insight', tags: [WORDS[Math.floor(r() * WORDS.length)]], summary: `About ${WORDS[Math.floor(r() * WORDS.length)]}` }, body(r, id));
}

function startFiles(r: () => number, n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`Notes/n${i}.md`] = noteText(r, `n${i}`);
  return out;
}

function make(vault: MemoryVault, vectors: boolean): VaultIndex {
  return new VaultIndex({ vault, embedder: vectors ? new CountingEmbedder() : undefined, autoEmbed: false, clock: fixedClock(), yieldNow: noYield });
}

/** Every answer, in an order that does not depend on slot numbers (equal scores tie-break by path). */
async function answers(i: VaultIndex, queries: string[], mode: 'bm25' | 'hybrid'): Promise<string[]> {
  const out: string[] = [];
  for (const q of queries) {
    const hits = (await i.search(q, { limit: 1000, mode })).hits.map((h) => `${h.score} ${h.path} | ${h.why.join('; ')} | ${h.snippet}`);
    out.push(`${q} => ${hits.sort((a, b) => Number(b.split(' ')[0]) - Number(a.split(' ')[0]) || a.localeCompare(b)).join('\n')}`);
  }
  return out;
}

async function reloaded(vault: MemoryVault, bytes: Uint8Array, vectors: boolean): Promise<VaultIndex> {
  const i = make(vault, vectors);
  const r = await i.open(bytes);
  expect(r).toMatchObject({ loaded: true, indexed: 0, removed: 0 });
  return i;
}

async function fresh(vault: MemoryVault, vectors: boolean): Promise<VaultIndex> {
  const i = make(vault, vectors);
  await i.build();
  return i;
}

const QUERIES = [...WORDS, 'socket parser', 'cache timeout retry', 'unique n3', 'unique n17', 'unique r5', 'decision vault', 't5'];

describe.each([
  ['BM25 only', false],
  ['with vectors', true],
] as const)('snapshot after edits (%s)', (_label, vectors) => {
  const mode = vectors ? 'hybrid' : 'bm25';

  it('round-trips after an update: the edited note is found by its new words only, the others unchanged', async () => {
    const vault = new MemoryVault({ files: startFiles(rng(1), 30) });
    const index = await fresh(vault, vectors);
    vault.externalWrite('Notes/n3.md', 'The zeppelin plan replaces everything.');
    await index.update('Notes/n3.md');
    await index.embedPending();
    const loaded = await reloaded(vault, index.snapshot(), vectors);
    expect((await loaded.search('zeppelin', { mode })).hits.map((h) => h.path)).toEqual(['Notes/n3.md']);
    expect((await loaded.search('unique n4', { mode: 'bm25' })).hits[0].path).toBe('Notes/n4.md');
    expect(await answers(loaded, QUERIES, 'bm25')).toEqual(await answers(await fresh(vault, vectors), QUERIES, 'bm25'));
    if (vectors) expect(await answers(loaded, QUERIES, mode)).toEqual(await answers(index, QUERIES, mode));
  });

  it('round-trips after a delete: every remaining note is still found by its own marker', async () => {
    const vault = new MemoryVault({ files: startFiles(rng(2), 30) });
    const index = await fresh(vault, vectors);
    vault.externalDelete('Notes/n0.md');
    index.remove('Notes/n0.md');
    const loaded = await reloaded(vault, index.snapshot(), vectors);
    for (let n = 1; n < 30; n++) expect((await loaded.search(`unique${`n${n}`}`, { mode: 'bm25' })).hits[0]?.path).toBe(`Notes/n${n}.md`);
    expect(loaded.has('Notes/n0.md')).toBe(false);
    expect(await answers(loaded, QUERIES, 'bm25')).toEqual(await answers(await fresh(vault, vectors), QUERIES, 'bm25'));
    if (vectors) expect(await answers(loaded, QUERIES, mode)).toEqual(await answers(index, QUERIES, mode));
  });

  it('round-trips after a rename: the note is found under its new path only', async () => {
    const vault = new MemoryVault({ files: startFiles(rng(3), 30) });
    const index = await fresh(vault, vectors);
    await vault.rename('Notes/n5.md', 'Notes/Renamed.md');
    await index.rename('Notes/n5.md', 'Notes/Renamed.md');
    await index.embedPending();
    const loaded = await reloaded(vault, index.snapshot(), vectors);
    expect((await loaded.search('uniquen5', { mode: 'bm25' })).hits.map((h) => h.path)).toEqual(['Notes/Renamed.md']);
    expect(await answers(loaded, QUERIES, 'bm25')).toEqual(await answers(await fresh(vault, vectors), QUERIES, 'bm25'));
    if (vectors) expect(await answers(loaded, QUERIES, mode)).toEqual(await answers(index, QUERIES, mode));
  });

  it('property: for random edit sequences, a loaded snapshot answers every query exactly as a fresh build', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const r = rng(seed * 7919);
      const vault = new MemoryVault({ files: startFiles(r, 12 + Math.floor(r() * 20)) });
      let index = await fresh(vault, vectors);
      let next = 1000;
      const steps = 20 + Math.floor(r() * 60);
      for (let s = 0; s < steps; s++) {
        const live = (await vault.list()).map((f) => f.path);
        const x = r();
        if (x < 0.35 && live.length > 0) {
          const p = live[Math.floor(r() * live.length)];
          vault.externalWrite(p, noteText(r, `e${next++}`));
          await index.update(p);
        } else if (x < 0.55 && live.length > 1) {
          const p = live[Math.floor(r() * live.length)];
          vault.externalDelete(p);
          index.remove(p);
        } else if (x < 0.75 && live.length > 0) {
          const p = live[Math.floor(r() * live.length)];
          const to = `Moved/m${next++}.md`;
          await vault.rename(p, to);
          await index.rename(p, to);
        } else if (x < 0.92) {
          const p = `Notes/a${next}.md`;
          vault.externalWrite(p, noteText(r, `a${next++}`));
          await index.update(p);
        } else {
          // A host restart in the middle of the sequence: save, load, carry on with the loaded index.
          await index.embedPending();
          index = await reloaded(vault, index.snapshot(), vectors);
        }
      }
      await index.embedPending();
      const loaded = await reloaded(vault, index.snapshot(), vectors);
      const texts = await Promise.all((await vault.list()).slice(0, 8).map(async (f) => (await vault.read(f.path)).text));
      const queries = [...QUERIES, ...texts.map((t) => /unique\w+/.exec(t)![0])];
      expect(await answers(loaded, queries, 'bm25'), `seed ${seed}`).toEqual(await answers(await fresh(vault, vectors), queries, 'bm25'));
      // Hybrid ranks break equal cosines by slot order, which a fresh build numbers differently: compare with the writer.
      if (vectors) expect(await answers(loaded, queries, 'hybrid'), `seed ${seed}`).toEqual(await answers(index, queries, 'hybrid'));
      expect(loaded.stats(), `seed ${seed}`).toEqual((await fresh(vault, vectors)).stats());
    }
  });
});
