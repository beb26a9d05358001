// Every note of every vault in ../shared/corpus/vaults/: for each valid note, edit one existing key and add one key,
// and assert that the diff touches only those lines; every invalid note is reported with a line and left alone.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeVault } from '../../sidecar/hosting/node-vault.js';
import { roundtripCheck } from '../../src/core/note/roundtrip.js';
import { editFrontmatter } from '../../src/core/note/frontmatter-edit.js';
import { findFrontmatter } from '../../src/core/note/frontmatter.js';
import { corpusPath, corpusSkipReason, hasCorpus } from '../helpers/shared.js';
import { assertEditStaysLocal } from '../helpers/roundtrip-assert.js';

const vaultsDir = corpusPath('vaults');
const vaults = hasCorpus && fs.existsSync(vaultsDir) ? fs.readdirSync(vaultsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name) : [];

describe.skipIf(!hasCorpus)(`frontmatter round trip on the corpus vaults${hasCorpus ? '' : ` (${corpusSkipReason})`}`, () => {
  it.each(vaults)('%s', async (name) => {
    const root = path.join(vaultsDir, name);
    const notes = await new NodeVault(root).listPaths();
    expect(notes.length).toBeGreaterThan(0);
    let valid = 0;
    let invalid = 0;
    for (const n of notes) {
      const text = fs.readFileSync(path.join(root, ...n.split('/')), 'utf8');
      const r = roundtripCheck(text);
      if (r.status === 'invalid') {
        invalid++;
        // The line is inside the frontmatter (or on the opening fence of an unclosed one).
        const block = findFrontmatter(text);
        const fmLines = block && 'yamlEnd' in block ? text.slice(0, block.yamlEnd).split('\n').length : 1;
        expect(r.line, `${n}: ${r.message}`).toBeGreaterThanOrEqual(1);
        expect(r.line, `${n}: ${r.message}`).toBeLessThanOrEqual(fmLines);
        expect(() => editFrontmatter(text, { set: { engram_id: 'x' } }, n), n).toThrow(/./);
        continue;
      }
      valid++;
      expect(r.status, `${n}: ${r.status === 'changed-elsewhere' ? r.message : ''}`).toBe('ok');
      if (r.status === 'ok') assertEditStaysLocal(`${name}/${n}`, text, r.text, r.editedKey, r.addedKey);
    }
    expect(valid + invalid).toBe(notes.length);
    // Every note whose frontmatter holds an unfilled `{{date}}` value is reported.
    for (const n of notes) {
      const text = fs.readFileSync(path.join(root, ...n.split('/')), 'utf8');
      const block = findFrontmatter(text);
      if (block && 'yamlEnd' in block && /^[\w-]+: *\{\{\w+\}\}/m.test(text.slice(block.yamlStart, block.yamlEnd))) {
        expect(roundtripCheck(text).status, `${n} holds {{…}}`).toBe('invalid');
      }
    }
  }, 600_000);
});
