// The committed synthetic vault (BOM, CRLF, no final newline, comments, flow lists, wikilinks in YAML, {{date}}
// templates, @handles, an unclosed ---, odd file names): every valid note survives an edit touching only the
// edited lines; every invalid note is reported with its line and never rewritten.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NodeVault } from '../../../sidecar/hosting/node-vault.js';
import { roundtripCheck } from '../../../src/core/note/roundtrip.js';
import { editFrontmatter } from '../../../src/core/note/frontmatter-edit.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { readNoteMeta } from '../../../src/core/note/meta.js';
import { isEngramError } from '../../../src/core/errors.js';
import { repoRoot } from '../../helpers/shared.js';
import { assertEditStaysLocal } from '../../helpers/roundtrip-assert.js';

const root = path.join(repoRoot, 'tests', 'fixtures', 'vault-synthetic');
const read = (p: string) => fs.readFileSync(path.join(root, ...p.split('/')), 'utf8');

// What a reader of these files finds wrong, by hand: file → line of the problem.
const INVALID: Record<string, number> = {
  'Templates/Daily template.md': 3,
  'Templates/Book template.md': 5,
  'handles.md': 4,
  'unclosed.md': 1,
  'duplicate-keys.md': 3,
  'tab-indent.md': 4,
};

describe('synthetic vault', () => {
  let notes: string[] = [];
  beforeAll(async () => {
    notes = await new NodeVault(root).listPaths();
  });

  it('lists the notes outside .obsidian and hidden files, odd names included', () => {
    expect(notes).toContain('Ünïcödé café – notes.md');
    expect(notes).toContain('emoji 🧠 brain.md');
    expect(notes).toContain('[brackets] & (parens) #hash.md');
    expect(notes).toContain('sub/deep/Nested note.md');
    expect(notes.some((n) => n.startsWith('.'))).toBe(false);
    expect(notes).not.toContain('notes.txt');
  });

  it('keeps its byte-level features (the .gitattributes keeps git from normalising them)', () => {
    expect(read('bom.md').charCodeAt(0)).toBe(0xfeff);
    expect(read('crlf.md')).toContain('\r\n');
    expect(read('no-final-newline.md').endsWith('\n')).toBe(false);
  });

  it('reports exactly the invalid notes, each with its line', () => {
    const found: Record<string, number> = {};
    for (const n of notes) {
      const p = parseNote(read(n)).problem;
      if (p) found[n] = p.line;
    }
    expect(found).toEqual(INVALID);
  });

  it.each(Object.keys(INVALID))('never rewrites invalid %s', (n) => {
    const text = read(n);
    let err: unknown;
    try {
      editFrontmatter(text, { set: { engram_id: 'x' } }, n);
    } catch (e) {
      err = e;
    }
    expect(isEngramError(err, 'invalid-yaml')).toBe(true);
    expect((err as Error).message.startsWith(`${n}:${INVALID[n]}: `)).toBe(true);
    expect(roundtripCheck(text)).toMatchObject({ status: 'invalid', line: INVALID[n] });
    expect(read(n)).toBe(text);
  });

  it('edits one key and adds one in every valid note, touching nothing else', () => {
    const valid = notes.filter((n) => !(n in INVALID));
    expect(valid.length).toBeGreaterThan(15);
    for (const n of valid) {
      const text = read(n);
      const r = roundtripCheck(text);
      expect(r.status, `${n}: ${JSON.stringify(r)}`).toBe('ok');
      if (r.status !== 'ok') continue;
      assertEditStaysLocal(n, text, r.text, r.editedKey, r.addedKey);
    }
  });

  it('edits the tricky notes the way a user would expect', () => {
    const crlf = editFrontmatter(read('crlf.md'), { set: { tags: ['crlf'] } }).text;
    expect(crlf).toBe(read('crlf.md').replace('  - crlf\r\n  - windows\r\n', '  - crlf\r\n'));
    const flow = editFrontmatter(read('flow-lists.md'), { set: { aliases: ['Padded', 'Single', 'New'] } }).text;
    expect(flow).toContain('aliases: [ Padded, Single, New ]\n');
    expect(flow).toContain('map: {a: 1, b: [x, y]}\n');
    const long = editFrontmatter(read('long-strings.md'), { set: { title: 'Short' } }).text;
    expect(long).toBe(read('long-strings.md').replace('title: Long strings', 'title: Short'));
    const bom = editFrontmatter(read('bom-crlf-no-newline.md'), { set: { added: 1 } }).text;
    expect(bom).toBe('\uFEFF---\r\ntitle: BOM, CRLF and no final newline\r\naliases: ["All three"]\r\nadded: 1\r\n---\r\nlast line');
  });

  it('refuses an edit that would change aliased keys too', () => {
    expect(() => editFrontmatter(read('anchors.md'), { set: { base: 'other' } })).toThrow(/side effects/);
  });

  it('reads Cyberbrain keys as their Engram equivalents', () => {
    const meta = readNoteMeta('cyberbrain.md', parseNote(read('cyberbrain.md')).data ?? {});
    expect(meta).toMatchObject({ reviewAfter: '2025-02-01', locked: false, engramSource: 'hook-extraction', engramSession: 'abc-123', engramId: 'legacy-id' });
    expect(meta.created).toBe(Date.parse('2025-01-01T10:00:00+00:00'));
  });
});
