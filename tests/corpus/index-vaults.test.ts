// The index on real third-party vaults (../shared/corpus/vaults): every note indexed, broken template frontmatter
// reported (not fatal), titles found first, and a snapshot round trip that re-reads nothing and answers the same.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeVault } from '../../sidecar/hosting/node-vault.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import { corpusPath, corpusSkipReason, hasCorpus } from '../helpers/shared.js';

describe.skipIf(!hasCorpus)(`index on real vaults (${hasCorpus ? 'corpus present' : corpusSkipReason})`, () => {
  it('kepano-obsidian: all notes, unfilled templates reported, a title search finds the note', async () => {
    const vault = new NodeVault(corpusPath('vaults', 'kepano-obsidian'));
    const index = new VaultIndex({ vault });
    const report = await index.build();
    expect(report.skipped).toEqual([]);
    expect(index.stats().notes).toBe(report.scanned);
    expect(report.problems.length).toBeGreaterThan(10);
    expect(report.problems.every((p) => p.path.startsWith('Templates/'))).toBe(true);
    const r = await index.search('book template');
    expect(r.hits[0].path).toBe('Templates/Book Template.md');
  });

  it('dwarvesf-brain: snapshot round trip re-reads nothing and answers the same', async () => {
    const vault = new NodeVault(corpusPath('vaults', 'dwarvesf-brain'));
    const clock = { now: () => Date.UTC(2026, 0, 1) };
    const index = new VaultIndex({ vault, clock });
    const built = await index.build();
    expect(built.skipped).toEqual([]);
    const again = new VaultIndex({ vault, clock });
    const opened = await again.open(index.snapshot());
    expect(opened).toMatchObject({ loaded: true, indexed: 0, removed: 0, unchanged: built.scanned });
    for (const q of ['golang error handling', 'what is a monorepo?', 'ci/cd pipeline', 'how do we run a retrospective', 'design system tokens']) {
      // Whole hits, excerpts too: the loaded index brings its boilerplate line counts, not a recount at the first search.
      const a = (await index.search(q)).hits;
      expect(a.length, q).toBeGreaterThan(0);
      expect((await again.search(q)).hits, q).toEqual(a);
      // The relative cut only drops hits: the hits it keeps are those of the search without it, excerpts and all.
      const all = (await again.search(q, { relativeCut: false })).hits;
      expect(a, q).toEqual(all.filter((h) => a.some((k) => k.path === h.path)));
    }
    expect(path.basename((await index.search('monorepo')).hits[0].path).toLowerCase()).toContain('monorepo');
  });
});
