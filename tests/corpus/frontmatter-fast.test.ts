// The index reads the simplest frontmatter blocks without the YAML parser (note/frontmatter.ts simpleFrontmatter): on
// every note of every corpus vault, whatever it reads is exactly what the parser reads, and it takes most notes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeVault } from '../../sidecar/hosting/node-vault.js';
import { findFrontmatter, parseNote, readNoteData, simpleFrontmatter } from '../../src/core/note/frontmatter.js';
import { corpusPath, corpusSkipReason, hasCorpus } from '../helpers/shared.js';

const vaultsDir = corpusPath('vaults');
const vaults = hasCorpus && fs.existsSync(vaultsDir) ? fs.readdirSync(vaultsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name) : [];

describe.skipIf(!hasCorpus)(`fast frontmatter reading on the corpus vaults${hasCorpus ? '' : ` (${corpusSkipReason})`}`, () => {
  it.each(vaults)('%s: the same data as the YAML parser for every note it reads', async (name) => {
    const root = path.join(vaultsDir, name);
    const notes = await new NodeVault(root).listPaths();
    let blocks = 0;
    let fast = 0;
    for (const n of notes) {
      const text = fs.readFileSync(path.join(root, ...n.split('/')), 'utf8');
      const block = findFrontmatter(text);
      if (block === null || 'message' in block) continue;
      blocks++;
      const data = simpleFrontmatter(text.slice(block.yamlStart, block.yamlEnd));
      const slow = parseNote(text);
      if (data) {
        fast++;
        expect(data, n).toEqual(slow.data);
      }
      expect(readNoteData(text), n).toEqual({ data: slow.data, body: slow.body, problem: slow.problem, block: slow.block });
    }
    if (name === 'digitalyoshixi-zettelkasten') expect(fast / blocks).toBeGreaterThan(0.9);
  });
});
