// A restart counts the saved note cache's terms at once (TermStats.setMany, by their indices into the cache's one term
// list) instead of a note at a time: the counts, and so the gate's weights and every context answer, must be the same.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine, IndexedVault } from '../../../src/core/engine.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { systemClock } from '../../../src/core/ports.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { contentTerms, TermStats } from '../../../src/core/recall/term-stats.js';
import { corpusPath, corpusSkipReason, hasCorpus } from '../../helpers/shared.js';

const TEXTS: Record<string, string> = {
  'a.md': 'The acme monorepo moved to pnpm workspaces with catalogs.',
  'b.md': 'Compost warms the garden beds in spring; the garden needs compost.',
  'c.md': 'Die Gartenarbeit beginnt im Frühling, wenn der Boden warm ist.',
  'd.md': 'pnpm catalogs pin one version of each dependency across the monorepo.',
};

/** Each note's terms as the cache saves them: one term list, each note's terms as indices into it. */
function indexed(texts: Record<string, string>): [string, { terms: string[]; ids: number[]; table: string[] }][] {
  const table: string[] = [];
  const id = new Map<string, number>();
  return Object.entries(texts).map(([p, text]) => {
    const terms = contentTerms(text);
    const ids = terms.map((t) => id.get(t) ?? (id.set(t, table.length), table.push(t) - 1));
    return [p, { terms, ids, table }];
  });
}

function sameCounts(a: TermStats, b: TermStats, paths: string[], terms: Iterable<string>): void {
  expect(a.size).toBe(b.size);
  for (const p of paths) expect(a.termsOf(p), p).toEqual(b.termsOf(p));
  for (const t of terms) expect(a.docFreq(t), t).toBe(b.docFreq(t));
}

function vaultTexts(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) if (f.endsWith('.md')) out[f.split(path.sep).join('/')] = fs.readFileSync(path.join(dir, f), 'utf8');
  return out;
}

describe('TermStats.setMany', () => {
  it('counts as setTerms a note at a time does, over notes it held already and damaged indices alike', () => {
    const notes = indexed(TEXTS);
    const one = new TermStats();
    const many = new TermStats();
    // A note held before with other terms: replaced, as setTerms replaces it.
    for (const s of [one, many]) s.set('a.md', 'An older text about yarn workspaces and the monorepo.');
    for (const [p, c] of notes) one.setTerms(p, c.terms);
    many.setMany(notes);
    const all = new Set([...notes.flatMap(([, c]) => c.terms), ...contentTerms('yarn workspaces monorepo')]);
    sameCounts(many, one, Object.keys(TEXTS), all);
    expect(many.docFreq('monorepo')).toBe(2);
    expect(many.docFreq('yarn')).toBe(0);

    // A note adopted so and then changed: its old terms are taken out as setTerms's would be.
    for (const s of [one, many]) s.set('d.md', 'Now about yarn.');
    sameCounts(many, one, Object.keys(TEXTS), all);

    // An index that names no term of the list (a damaged cache): counted as the note a note at a time would list it.
    const [p, c] = notes[1];
    const damaged = { ...c, ids: c.ids.map((i, k) => (k === 0 ? 999 : i)) };
    const a = new TermStats();
    const b = new TermStats();
    a.setTerms(p, damaged.ids.map((i) => c.table[i]));
    b.setMany([[p, damaged]]);
    sameCounts(b, a, [p], c.terms);
  });

  it.skipIf(!hasCorpus)('gives the counts of a note at a time on a real vault (kepano-obsidian)', () => {
    const notes = indexed(vaultTexts(corpusPath('vaults', 'kepano-obsidian')));
    expect(notes.length).toBeGreaterThan(100);
    const one = new TermStats();
    for (const [p, c] of notes) one.setTerms(p, c.terms);
    const many = new TermStats();
    many.setMany(notes);
    sameCounts(many, one, notes.map(([p]) => p), notes[0][1].table);
  });
  if (!hasCorpus) it.skip(corpusSkipReason, () => {});
});

describe('a restart from the saved snapshot and note cache', () => {
  const texts = hasCorpus ? vaultTexts(corpusPath('vaults', 'kepano-obsidian')) : Object.fromEntries(Object.entries(TEXTS).map(([p, t]) => [`Notes/${p}`, `# ${p}\n${t}\n`]));
  // Prompts naming what notes of the vault are about (their titles), and two that no note answers.
  const prompts = [...Object.keys(texts).slice(0, 12).map((p) => `what did I write about ${path.basename(p, '.md')}?`), 'thanks, looks good', 'how do I tune a diesel engine'];

  it('answers every prompt, and counts every term, as the engine that read the vault did', async () => {
    const store = new MemoryStateStore();
    const persist = { store, dir: 'vaults/x' };
    let bytes: Uint8Array | null = null;
    const snapshot = { read: () => Promise.resolve(bytes), write: (b: Uint8Array) => Promise.resolve(void (bytes = b)) };
    const vault = new MemoryVault({ files: texts });
    const start = async (log?: (level: string, m: string) => void) => {
      const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() }, index: new IndexedVault(new VaultIndex({ vault, autoEmbed: false }), { snapshot }), persist, log });
      await engine.start();
      return engine;
    };
    // A session of its own per engine: a restarted engine never gives a session the notes it gave it before.
    const ask = (engine: Engine, i: number) => engine.context({ event: 'UserPromptSubmit', prompt: prompts[i], sessionId: `${engine === first ? 'a' : 'b'}${i}`, maxChars: 3000, maxItems: 5 });
    const first: Engine = await start();
    const before = await Promise.all(prompts.map((_, i) => ask(first, i)));
    await first.save();
    expect(bytes).not.toBeNull();
    const second = await start();
    const after = await Promise.all(prompts.map((_, i) => ask(second, i)));
    expect(before.filter((r) => r.items.length > 0).length).toBeGreaterThan(0);
    for (let i = 0; i < prompts.length; i++) {
      expect(after[i].items.map((x) => x.path), prompts[i]).toEqual(before[i].items.map((x) => x.path));
      expect(after[i].text, prompts[i]).toBe(before[i].text);
    }
    // And the gate's counts behind them, term by term (its weights decide what is withheld).
    const stats = (e: Engine) => (e as unknown as { vaultNotes: { stats: TermStats } }).vaultNotes.stats;
    const paths = Object.keys(texts);
    sameCounts(stats(second), stats(first), paths, new Set(paths.flatMap((p) => stats(first).termsOf(p) ?? [])));

    // A cache whose entry lacks its term list: not used (every note is read again), and the log says which.
    const cache = JSON.parse(store.files.get('vaults/x/notes.json')!) as { notes: unknown[][] };
    cache.notes[0][4] = null;
    store.files.set('vaults/x/notes.json', JSON.stringify(cache));
    const warnings: string[] = [];
    const third = await start((_l, m) => warnings.push(m));
    expect(warnings.join('\n')).toContain(`note cache not used: notes.json: the entry of ${String(cache.notes[0][0])} is unreadable`);
    expect(third.noteCount()).toBe(first.noteCount());
  });
});
