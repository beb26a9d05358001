// The wikilink model on real vaults: every link written back byte-for-byte, an identity rewrite changes
// nothing, and a merge across the vault touches only link text.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogNote, NoteCatalog, type CatalogNote } from '../../src/core/curate/catalog';
import { planLinkRewrites } from '../../src/core/curate/apply';
import { formatLink } from '../../src/core/curate/links';
import { rewriteLinks } from '../../src/core/curate/link-rewrite';
import { corpusPath, corpusSkipReason, hasCorpus } from '../helpers/shared';

function readVault(dir: string): NoteCatalog {
  const notes: CatalogNote[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) notes.push(catalogNote(path.relative(dir, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8')));
    }
  };
  walk(dir);
  return new NoteCatalog(notes);
}

const vaults = ['kepano-obsidian', 'dwarvesf-brain', 'digitalyoshixi-zettelkasten'];

describe.skipIf(!hasCorpus)(`curation links on the corpus vaults (${hasCorpus ? 'present' : corpusSkipReason})`, () => {
  for (const name of vaults) {
    it(`${name}: links round-trip, identity rewrite is a no-op, a merge edits only links`, () => {
      const catalog = readVault(corpusPath('vaults', name));
      let links = 0;
      let resolved = 0;
      for (const n of catalog.notes.values()) {
        for (const l of n.links) {
          links++;
          if (l.form === 'wiki') expect(formatLink(l)).toBe(n.text.slice(l.start, l.end));
          if (catalog.resolver.resolve(l.linkpath, n.path)) resolved++;
        }
        const same = rewriteLinks(n.text, n.path, n.path, { before: catalog.resolver, after: catalog.resolver, redirect: (t) => t });
        expect(same.edits).toEqual([]);
      }
      expect(links).toBeGreaterThan(0);
      expect(resolved).toBeGreaterThan(0);
      // Merge the most-linked note into another: every rewritten note differs only inside its link ranges.
      const top = [...catalog.notes.keys()].sort((a, b) => catalog.backlinks(b).size - catalog.backlinks(a).size);
      const [from, to] = [top[0], top[1]];
      const rewrites = planLinkRewrites(catalog, { trash: [from], moves: [], writes: [], redirect: { kind: 'move', moves: [[from, to]] } });
      expect(rewrites.length).toBeGreaterThan(0);
      for (const r of rewrites) {
        let rebuilt = '';
        let at = 0;
        for (const e of r.edits) {
          rebuilt += r.before.slice(at, e.start) + e.before;
          at = e.end;
        }
        expect(rebuilt + r.before.slice(at)).toBe(r.before);
        for (const e of r.edits) expect(catalog.resolver.with({ remove: [from] }).resolve(e.after.replace(/^!?\[\[|\]\]$/g, '').split(/\\?\||#/)[0], r.path)).toBe(to);
      }
    }, 120_000);
  }
});
