// The core path module must agree with node's path.posix and path.win32 on the operations it implements.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { posixPath, win32Path, vaultPath, vaultDirname, vaultBasename, vaultJoin, pathOpsFor } from '../../src/core/path.js';

const samples = [
  '', '.', '..', '/', '//', 'a', 'a/', '/a', '/a/', 'a/b', 'a//b', 'a/./b', 'a/../b', '../a', '../../a/b', 'a/b/../../..',
  '/a/b/../../..', '/..', './a', 'a/.', 'a/..', '.hidden', 'dir/.hidden', 'file.md', 'dir/file.tar.gz', 'dir/file.',
  '..md', 'a/b/c.d/e', '/home/user/.engram/', 'Engram/Inbox/Use pnpm.md', 'x/y/z/',
  'C:\\', 'C:', 'C:a', 'C:\\a\\b', 'C:/a/b', 'c:\\a\\..\\..\\b', '\\\\server\\share\\x\\y', '\\\\server\\share', '\\a\\b',
  'a\\b\\c.txt', 'a\\b\\', 'C:\\Users\\Me\\.engram\\vaults', 'mixed/sep\\path', '\\\\server\\share\\', 'C:\\a\\',
];

describe.each([
  ['posix', posixPath, path.posix],
  ['win32', win32Path, path.win32],
] as const)('%s path operations agree with node:path', (_name, ours, node) => {
  it.each(samples)('normalize(%j)', (p) => expect(ours.normalize(p)).toBe(node.normalize(p)));
  it.each(samples)('dirname(%j)', (p) => expect(ours.dirname(p)).toBe(node.dirname(p)));
  it.each(samples)('basename(%j)', (p) => expect(ours.basename(p)).toBe(node.basename(p)));
  it.each(samples)('extname(%j)', (p) => expect(ours.extname(p)).toBe(node.extname(p)));
  it.each(samples)('isAbsolute(%j)', (p) => expect(ours.isAbsolute(p)).toBe(node.isAbsolute(p)));
  it('basename with an extension', () => {
    // node's win32.basename('C:\\', ext) returns '\\' (a quirk of its suffix scan); a bare root has no base name.
    for (const p of samples.filter((s) => !/^[A-Za-z]:[\\/]$/.test(s))) expect(ours.basename(p, '.md')).toBe(node.basename(p, '.md'));
    expect(ours.basename('dir/Note.md', '.md')).toBe('Note');
  });
  it('join', () => {
    const pairs: string[][] = [['a', 'b'], ['/a', 'b', '../c'], ['a', ''], ['', ''], ['a/', '/b/'], ['C:\\x', 'y'], ['/home/u', '.engram', 'vaults', 'abc', 'ledger.json'], ['a', '..', '..']];
    for (const parts of pairs) expect(ours.join(...parts)).toBe(node.join(...parts));
  });
  it('separator', () => expect(ours.sep).toBe(node.sep));
});

describe('pathOpsFor', () => {
  it('picks win32 only for win32', () => {
    expect(pathOpsFor('win32')).toBe(win32Path);
    expect(pathOpsFor('darwin')).toBe(posixPath);
    expect(pathOpsFor('linux')).toBe(posixPath);
  });
});

describe('vault paths', () => {
  it('normalises separators and dot segments', () => {
    expect(vaultPath('Engram\\Inbox\\a.md')).toBe('Engram/Inbox/a.md');
    expect(vaultPath('./a//b/./c.md')).toBe('a/b/c.md');
  });
  it.each(['', '/etc/passwd', '../x.md', 'a/../../x.md', 'a/..', 'C:\\x.md', 'c:x.md', 'a\0b', '.', '\\\\server\\share\\x'])('refuses %j', (p) => {
    expect(() => vaultPath(p)).toThrow(/not a path inside the vault/);
  });
  it('splits and joins', () => {
    expect(vaultDirname('a/b/c.md')).toBe('a/b');
    expect(vaultDirname('c.md')).toBe('');
    expect(vaultBasename('a/b/c.md')).toBe('c.md');
    expect(vaultJoin('', 'Engram/Inbox', 'x.md')).toBe('Engram/Inbox/x.md');
  });
});
