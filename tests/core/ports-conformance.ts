// The conformance suite every VaultPort must pass (memory, Node, and later Obsidian). Call it with a factory that
// builds a fresh vault seeded with the given files and offers a way to change a file behind the port's back.
import { describe, expect, it } from 'vitest';
import { isEngramError } from '../../src/core/errors.js';
import type { VaultChange, VaultPort } from '../../src/core/ports.js';

export interface VaultUnderTest {
  vault: VaultPort;
  /** Changes a file as the user or a sync tool would (not through the port). */
  externalWrite(path: string, text: string): Promise<void>;
  /** Every file's text, hidden and trashed ones included, keyed by vault path. */
  allFiles(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

export type VaultFactory = (files: Record<string, string>) => Promise<VaultUnderTest>;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

async function withVault(factory: VaultFactory, files: Record<string, string>, fn: (v: VaultUnderTest) => Promise<void>): Promise<void> {
  const v = await factory(files);
  try {
    await fn(v);
  } finally {
    await v.cleanup();
  }
}

const seed = {
  'Note.md': '# Note\n',
  'Engram/Inbox/Use pnpm.md': '---\ntype: decision\n---\nUse pnpm.\n',
  'Daily/2024-01-01.md': '\uFEFF---\r\ntags: [a]\r\n---\r\nbody without newline',
  'Ünïcödé 日本.md': 'text',
  '.obsidian/workspace.md': 'config',
  '.trash/Old.md': 'old',
  '.hidden/Secret.md': 'hidden',
  'Folder/.dotfile.md': 'dot',
  'image.png': 'binary-ish',
  'Folder/notes.txt': 'not markdown',
};

export function vaultPortConformance(name: string, factory: VaultFactory): void {
  describe(`VaultPort conformance: ${name}`, () => {
    it('lists every Markdown note outside the config, trash and hidden folders, sorted, with sizes in bytes', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const list = await vault.list();
        expect(list.map((f) => f.path)).toEqual(['Daily/2024-01-01.md', 'Engram/Inbox/Use pnpm.md', 'Note.md', 'Ünïcödé 日本.md']);
        const daily = list.find((f) => f.path === 'Daily/2024-01-01.md');
        expect(daily?.size).toBe(new TextEncoder().encode(seed['Daily/2024-01-01.md']).length);
        for (const f of list) expect(f.mtime).toBeGreaterThan(0);
      });
    });

    it('reads text exactly as stored (BOM, CRLF, no final newline)', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const f = await vault.read('Daily/2024-01-01.md');
        expect(f.text).toBe(seed['Daily/2024-01-01.md']);
        expect(f.path).toBe('Daily/2024-01-01.md');
        expect((await vault.read('Ünïcödé 日本.md')).text).toBe('text');
      });
    });

    it('reports a missing note as not-found', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const e = await rejection(vault.read('Missing.md'));
        expect(isEngramError(e, 'not-found')).toBe(true);
        expect(await vault.exists('Missing.md')).toBe(false);
        expect(await vault.exists('Note.md')).toBe(true);
      });
    });

    it('refuses paths that leave the vault, on every operation', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        for (const bad of ['../outside.md', '/etc/passwd', 'a/../../outside.md', 'C:\\x.md']) {
          for (const op of [
            () => vault.read(bad),
            () => vault.exists(bad),
            () => vault.create(bad, 'x'),
            () => vault.writeIfUnchanged(bad, '', 'x'),
            () => vault.trash(bad),
            () => vault.rename('Note.md', bad),
            () => vault.rename(bad, 'x.md'),
          ]) {
            const e = await rejection(op());
            expect(isEngramError(e, 'refused'), `${bad}: ${String(e)}`).toBe(true);
          }
        }
        expect((await vault.read('Note.md')).text).toBe('# Note\n');
      });
    });

    it('creates a note and its folders, and refuses to create over an existing one', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const info = await vault.create('Engram/Projects/engram/New note.md', 'hello\n');
        expect(info.path).toBe('Engram/Projects/engram/New note.md');
        expect(info.size).toBe(6);
        expect((await vault.read('Engram/Projects/engram/New note.md')).text).toBe('hello\n');
        const e = await rejection(vault.create('Note.md', 'clobber'));
        expect(isEngramError(e, 'conflict')).toBe(true);
        expect((await vault.read('Note.md')).text).toBe('# Note\n');
      });
    });

    it('writes only when the content is still what was read', async () => {
      await withVault(factory, seed, async ({ vault, externalWrite }) => {
        const before = await vault.read('Note.md');
        await vault.writeIfUnchanged('Note.md', before.text, '# Note\nmore\n');
        expect((await vault.read('Note.md')).text).toBe('# Note\nmore\n');

        await externalWrite('Note.md', 'the user typed this');
        const e = await rejection(vault.writeIfUnchanged('Note.md', '# Note\nmore\n', 'engine text'));
        expect(isEngramError(e, 'conflict')).toBe(true);
        expect((await vault.read('Note.md')).text).toBe('the user typed this');

        const missing = await rejection(vault.writeIfUnchanged('Gone.md', '', 'x'));
        expect(isEngramError(missing, 'not-found')).toBe(true);
        expect(await vault.exists('Gone.md')).toBe(false);
      });
    });

    it('appends at the end without reading, and never creates a missing file', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        await Promise.all([vault.append('Note.md', 'one\n'), vault.append('Note.md', 'two\n')]);
        const text = (await vault.read('Note.md')).text;
        expect(text.startsWith('# Note\n')).toBe(true);
        expect(text.slice('# Note\n'.length).split('\n').sort()).toEqual(['', 'one', 'two']);
        const missing = await rejection(vault.append('Gone.md', 'x'));
        expect(isEngramError(missing, 'not-found')).toBe(true);
        expect(await vault.exists('Gone.md')).toBe(false);
      });
    });

    it('lets exactly one of two concurrent writers with the same expected text win', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const { text } = await vault.read('Note.md');
        const results = await Promise.allSettled([vault.writeIfUnchanged('Note.md', text, 'A'), vault.writeIfUnchanged('Note.md', text, 'B')]);
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        const lost = results.find((r) => r.status === 'rejected');
        expect(isEngramError(lost?.reason, 'conflict')).toBe(true);
        expect(['A', 'B']).toContain((await vault.read('Note.md')).text);
      });
    });

    it('leaves no temporary files behind', async () => {
      await withVault(factory, seed, async ({ vault, allFiles }) => {
        await vault.create('A.md', 'a');
        await vault.writeIfUnchanged('A.md', 'a', 'b');
        await rejection(vault.writeIfUnchanged('A.md', 'stale', 'c'));
        await rejection(vault.create('A.md', 'again'));
        const files = Object.keys(await allFiles());
        expect(files.filter((f) => f.endsWith('.tmp') || /\.engram-tmp-/.test(f))).toEqual([]);
      });
    });

    it('moves a trashed note into .trash, recoverable, without losing same-named notes', async () => {
      await withVault(factory, { 'a/Same.md': 'one', 'b/Same.md': 'two', 'Same.md': 'three' }, async ({ vault, allFiles }) => {
        await vault.trash('a/Same.md');
        await vault.trash('b/Same.md');
        await vault.trash('Same.md');
        expect(await vault.list()).toEqual([]);
        const trashed = Object.entries(await allFiles()).filter(([p]) => p.startsWith('.trash/'));
        expect(trashed.map(([, t]) => t).sort()).toEqual(['one', 'three', 'two']);
        const e = await rejection(vault.trash('Same.md'));
        expect(isEngramError(e, 'not-found')).toBe(true);
      });
    });

    it('trashes a note twice under the same name without overwriting the first', async () => {
      await withVault(factory, { 'X.md': 'first' }, async ({ vault, allFiles }) => {
        await vault.trash('X.md');
        await vault.create('X.md', 'second');
        await vault.trash('X.md');
        const trashed = Object.entries(await allFiles()).filter(([p]) => p.startsWith('.trash/'));
        expect(trashed.map(([, t]) => t).sort()).toEqual(['first', 'second']);
      });
    });

    it('renames into new folders, refuses to overwrite, reports a missing source', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        await vault.rename('Note.md', 'Engram/Archive/Note.md');
        expect(await vault.exists('Note.md')).toBe(false);
        expect((await vault.read('Engram/Archive/Note.md')).text).toBe('# Note\n');
        const e = await rejection(vault.rename('Engram/Archive/Note.md', 'Engram/Inbox/Use pnpm.md'));
        expect(isEngramError(e, 'conflict')).toBe(true);
        expect((await vault.read('Engram/Inbox/Use pnpm.md')).text).toBe(seed['Engram/Inbox/Use pnpm.md']);
        expect((await vault.read('Engram/Archive/Note.md')).text).toBe('# Note\n');
        const missing = await rejection(vault.rename('Nope.md', 'Other.md'));
        expect(isEngramError(missing, 'not-found')).toBe(true);
      });
    });

    it('renames without touching links in other notes: curation rewrites them itself, as the one writer', async () => {
      const links = 'See [[Note]], [[Note#Why|why]] and [[Folder/Note]]; [n](Folder/Note.md).\n';
      await withVault(factory, { 'Folder/Note.md': '# Note\n', 'Links.md': links }, async ({ vault }) => {
        await vault.rename('Folder/Note.md', 'Engram/Archive/Renamed.md');
        expect((await vault.read('Links.md')).text).toBe(links);
        expect((await vault.read('Engram/Archive/Renamed.md')).text).toBe('# Note\n');
      });
    });

    it('allows a case-only rename', async () => {
      await withVault(factory, { 'note.md': 'x' }, async ({ vault }) => {
        await vault.rename('note.md', 'Note.md');
        expect((await vault.list()).map((f) => f.path)).toEqual(['Note.md']);
      });
    });

    it('reports its own changes to watchers until they stop watching', async () => {
      await withVault(factory, seed, async ({ vault }) => {
        const seen: VaultChange[] = [];
        const stop = vault.watch((c) => seen.push(c));
        await vault.create('W.md', 'w');
        await vault.writeIfUnchanged('W.md', 'w', 'w2');
        await vault.rename('W.md', 'W2.md');
        await vault.trash('W2.md');
        await expect.poll(() => seen.length).toBeGreaterThanOrEqual(4);
        expect(seen.slice(0, 4)).toEqual([
          { kind: 'create', path: 'W.md' },
          { kind: 'modify', path: 'W.md' },
          { kind: 'rename', path: 'W2.md', oldPath: 'W.md' },
          { kind: 'delete', path: 'W2.md' },
        ]);
        stop();
        const count = seen.length;
        await vault.create('After.md', 'a');
        await new Promise((r) => setTimeout(r, 50));
        expect(seen.length).toBe(count);
      });
    });
  });
}
