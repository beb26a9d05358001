// The engine's "related to this note": closest notes through the one search road (words, or meaning with a model) and
// the notes that cite it (body wikilinks or `related:`), Engram's own first.
import { describe, expect, it } from 'vitest';
import { Engine, IndexedVault } from '../../src/core/engine.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { systemClock } from '../../src/core/ports.js';
import { CountingEmbedder, noYield } from '../helpers/index-fixtures.js';

const FILES = {
  'Notes/Sourdough.md': '# Sourdough\nFeed the sourdough starter with rye flour before baking the loaf.\n',
  'Notes/Rye bread.md': '# Rye bread\nA rye loaf needs a lively sourdough starter and long proofing.\n',
  'Notes/Garden.md': '# Garden\nTomatoes need water and sun in the greenhouse.\n',
  'Notes/Weekend.md': 'Baked bread on Saturday, see [[Sourdough]].\n',
  'Engram/Inbox/Starter tip.md': '---\ntype: insight\nengram_id: e1\nrelated:\n  - "[[Sourdough]]"\n---\nKeep the starter warm.\n',
  'Engram/Archive/Old.md': 'An old note about [[Sourdough]].\n',
};

async function engineWith(index?: IndexedVault, vault = new MemoryVault({ files: FILES })): Promise<Engine> {
  const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: noYield }, index });
  await engine.start();
  return engine;
}

describe('Engine.related', () => {
  it('words without a model: the note sharing rare words comes first, never the note itself or an unrelated one', async () => {
    const engine = await engineWith();
    const r = await engine.related('Notes/Sourdough.md', 5);
    const paths = r.similar.map((h) => h.path);
    expect(paths[0]).toBe('Notes/Rye bread.md');
    expect(paths).not.toContain('Notes/Sourdough.md');
    expect(paths).not.toContain('Notes/Garden.md');
    expect(r.similar[0].why.join(' ')).toMatch(/sourdough|starter|rye|loaf/);
  });

  it('citing: body wikilinks and related: links, Engram notes first, the archive left out', async () => {
    const engine = await engineWith();
    const r = await engine.related('Notes/Sourdough.md');
    expect(r.citing).toEqual(['Engram/Inbox/Starter tip.md', 'Notes/Weekend.md']);
    expect((await engine.related('Notes/Garden.md')).citing).toEqual([]);
  });

  it('meaning with a model: the note vector ranks by cosine and says so', async () => {
    const vault = new MemoryVault({ files: FILES });
    const embedder = new CountingEmbedder();
    const vi = new VaultIndex({ vault, embedder, autoEmbed: false, clock: systemClock, yieldNow: noYield });
    const engine = await engineWith(new IndexedVault(vi), vault);
    await vi.embedPending();
    const calls = embedder.calls;
    const r = await engine.related('Notes/Sourdough.md', 3);
    // The note's own vector from the index: nothing is embedded for the question.
    expect(embedder.calls).toBe(calls);
    expect(r.similar[0].path).toBe('Notes/Rye bread.md');
    expect(r.similar[0].why.some((w) => w.startsWith('meaning'))).toBe(true);
  });

  it('a path Engram does not index is refused with a message', async () => {
    const engine = await engineWith();
    await expect(engine.related('Notes/Missing.md')).rejects.toThrow(/no indexed note at Notes\/Missing.md/);
  });
});
