// Runs the VaultPort conformance suite against the in-memory vault and the Node file-system vault,
// plus the behaviour specific to each (atomic writes on disk, simulated external edits in memory).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { NodeVault } from '../../sidecar/hosting/node-vault.js';
import { atomicWriteFile } from '../../sidecar/hosting/atomic-write.js';
import { isEngramError } from '../../src/core/errors.js';
import { listFiles, makeTempDir, removeDir } from '../helpers/temp.js';
import { vaultPortConformance, type VaultUnderTest } from './ports-conformance.js';


vaultPortConformance('MemoryVault', async (files) => {
  const vault = new MemoryVault({ files });
  const v: VaultUnderTest = {
    vault,
    externalWrite: (p, text) => Promise.resolve(vault.externalWrite(p, text)),
    allFiles: () => Promise.resolve(vault.snapshot()),
    cleanup: () => Promise.resolve(),
  };
  return v;
});

vaultPortConformance('NodeVault', async (files) => {
  const root = makeTempDir('engram-vault-');
  for (const [p, text] of Object.entries(files)) {
    const full = path.join(root, ...p.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  const vault = new NodeVault(root);
  return {
    vault,
    externalWrite: (p, text) => Promise.resolve(fs.writeFileSync(path.join(root, ...p.split('/')), text)),
    allFiles: () => Promise.resolve(Object.fromEntries(listFiles(root).map((p) => [p, fs.readFileSync(path.join(root, p), 'utf8')]))),
    cleanup: () => Promise.resolve(removeDir(root)),
  };
});

describe('NodeVault specifics', () => {
  it('reports a vault folder that does not exist with a hint', async () => {
    const root = makeTempDir();
    try {
      const e = await new NodeVault(path.join(root, 'nope')).list().catch((x: unknown) => x);
      expect(isEngramError(e, 'not-found')).toBe(true);
      expect((e as Error).message).toContain('vault path does not exist');
    } finally {
      removeDir(root);
    }
  });

  it('honours a custom config folder', async () => {
    const root = makeTempDir();
    try {
      fs.mkdirSync(path.join(root, 'cfg'));
      fs.writeFileSync(path.join(root, 'cfg', 'x.md'), 'x');
      fs.writeFileSync(path.join(root, 'n.md'), 'n');
      expect((await new NodeVault(root, { configDir: 'cfg' }).list()).map((f) => f.path)).toEqual(['n.md']);
    } finally {
      removeDir(root);
    }
  });

  it('replaces a file by rename, so a reader never sees half a file and the inode changes', async () => {
    const root = makeTempDir();
    try {
      const file = path.join(root, 'a.md');
      fs.writeFileSync(file, 'old');
      const before = fs.statSync(file).ino;
      const vault = new NodeVault(root);
      await vault.writeIfUnchanged('a.md', 'old', 'new'.repeat(10_000));
      expect(fs.readFileSync(file, 'utf8')).toBe('new'.repeat(10_000));
      expect(fs.statSync(file).ino).not.toBe(before);
      await atomicWriteFile(path.join(root, 'state', 'deep', 'x.json'), '{}');
      expect(fs.readFileSync(path.join(root, 'state', 'deep', 'x.json'), 'utf8')).toBe('{}');
      expect(listFiles(root).filter((f) => f.endsWith('.tmp') || /\.engram-tmp-/.test(f))).toEqual([]);
    } finally {
      removeDir(root);
    }
  });

  it.skipIf(process.platform === 'win32')('keeps a replaced file\'s permissions and applies an explicit mode exactly', async () => {
    const root = makeTempDir();
    try {
      const note = path.join(root, 'private.md');
      fs.writeFileSync(note, 'a');
      fs.chmodSync(note, 0o600);
      await new NodeVault(root).writeIfUnchanged('private.md', 'a', 'b');
      expect(fs.statSync(note).mode & 0o777).toBe(0o600);
      const token = path.join(root, 'state', 'token');
      await atomicWriteFile(token, 'secret', { mode: 0o600 });
      expect(fs.statSync(token).mode & 0o777).toBe(0o600);
    } finally {
      removeDir(root);
    }
  });

  it('refuses to rewrite a note that is not valid UTF-8 (its bytes would be lost)', async () => {
    const root = makeTempDir();
    try {
      const latin1 = Buffer.from('caf\xe9\n', 'latin1');
      fs.writeFileSync(path.join(root, 'old.md'), latin1);
      const vault = new NodeVault(root);
      const { text } = await vault.read('old.md');
      const e = await vault.writeIfUnchanged('old.md', text, 'new').catch((x: unknown) => x);
      expect(isEngramError(e, 'refused')).toBe(true);
      expect(fs.readFileSync(path.join(root, 'old.md')).equals(latin1)).toBe(true);
    } finally {
      removeDir(root);
    }
  });

  it('does not follow a note path out of the vault through ..', async () => {
    const root = makeTempDir();
    try {
      const vault = new NodeVault(path.join(root, 'vault'));
      fs.mkdirSync(path.join(root, 'vault'));
      const e = await vault.create('../escape.md', 'x').catch((x: unknown) => x);
      expect(isEngramError(e, 'refused')).toBe(true);
      expect(fs.existsSync(path.join(root, 'escape.md'))).toBe(false);
    } finally {
      removeDir(root);
    }
  });
});

describe('MemoryVault specifics', () => {
  it('can behave like a case-insensitive file system', async () => {
    const vault = new MemoryVault({ files: { 'Note.md': 'a' }, caseInsensitive: true });
    const e = await vault.create('note.md', 'b').catch((x: unknown) => x);
    expect(isEngramError(e, 'conflict')).toBe(true);
    const nfd = await vault.create('Cafe\u0301.md', 'x');
    expect(nfd.path).toBe('Cafe\u0301.md');
    const twin = await vault.create('Caf\u00e9.md', 'y').catch((x: unknown) => x);
    expect(isEngramError(twin, 'conflict')).toBe(true);
    expect((await vault.read('NOTE.md')).text).toBe('a');
    expect(await vault.exists('note.md')).toBe(true);
    await vault.writeIfUnchanged('note.md', 'a', 'c');
    expect(vault.snapshot()['Note.md']).toBe('c');
  });

  it('reports external edits to watchers', () => {
    const vault = new MemoryVault();
    const seen: string[] = [];
    vault.watch((c) => seen.push(`${c.kind} ${c.path}`));
    vault.externalWrite('a.md', 'x');
    vault.externalWrite('a.md', 'y');
    vault.externalDelete('a.md');
    expect(seen).toEqual(['create a.md', 'modify a.md', 'delete a.md']);
  });
});
