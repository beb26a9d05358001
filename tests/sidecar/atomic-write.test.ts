// The one atomic write (sidecar/hosting/atomic-write.ts), both variants: content and permissions, and no temp file left
// by a write that fails before or at the rename (a full disk included).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { atomicWriteFile, atomicWriteFileSync, type AtomicWriteOptions } from '../../sidecar/hosting/atomic-write.js';
import { isTempName } from '../../sidecar/hosting/temp-files.js';
import { canMount, fill, mountTmpfs } from '../helpers/tmpfs.js';
import { spawnSync } from 'node:child_process';

const variants: [string, (target: string, data: string | Uint8Array, o?: AtomicWriteOptions) => Promise<void>][] = [
  ['async', (t, d, o) => atomicWriteFile(t, d, o)],
  ['sync', (t, d, o) => Promise.resolve().then(() => atomicWriteFileSync(t, d, o))],
];

describe.each(variants)('atomic write (%s)', (_name, write) => {
  let root: string;
  beforeEach(() => {
    root = makeTempDir();
  });
  afterEach(() => removeDir(root));
  const temps = (dir: string) => fs.readdirSync(dir).filter(isTempName);

  it('creates the folder, writes text or bytes, and leaves no temp file', async () => {
    const file = path.join(root, 'a', 'b', 'state.json');
    await write(file, '{"x":1}');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"x":1}');
    await write(file, new Uint8Array([1, 2, 3]));
    expect([...fs.readFileSync(file)]).toEqual([1, 2, 3]);
    expect(temps(path.dirname(file))).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('applies an explicit mode exactly and otherwise keeps the replaced file\'s', async () => {
    const file = path.join(root, 'secret');
    await write(file, 'a', { mode: 0o600 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.chmodSync(file, 0o640);
    await write(file, 'b');
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });

  it('calls beforeRename between the synced temp file and the rename; a failure there keeps the old file and removes the temp', async () => {
    const file = path.join(root, 'note.md');
    fs.writeFileSync(file, 'old');
    let seen: string[] = [];
    const e = await write(file, 'new', {
      beforeRename: () => {
        seen = temps(root).map((n) => fs.readFileSync(path.join(root, n), 'utf8'));
        throw new Error('crash point');
      },
    }).catch((x: unknown) => x);
    expect((e as Error).message).toBe('crash point');
    expect(seen).toEqual(['new']);
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(temps(root)).toEqual([]);
  });

  it.skipIf(!canMount)('a full disk: the write fails, the old file stays whole, and no empty temp file is left', async () => {
    const disk = path.join(root, 'disk');
    fs.mkdirSync(disk);
    mountTmpfs(disk, '64k');
    try {
      const file = path.join(disk, 'state.json');
      fs.writeFileSync(file, 'old');
      fill(disk);
      const e = await write(file, 'x'.repeat(16_384)).catch((x: unknown) => x);
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      expect(fs.readFileSync(file, 'utf8')).toBe('old');
      expect(temps(disk)).toEqual([]);
    } finally {
      spawnSync('umount', ['-l', disk]);
    }
  });

  it('a rename that fails (the target is a folder with files) removes the temp file', async () => {
    const target = path.join(root, 'taken');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'x'), 'x');
    await expect(write(target, 'data')).rejects.toThrow();
    expect(temps(root)).toEqual([]);
    expect(fs.readFileSync(path.join(target, 'x'), 'utf8')).toBe('x');
  });
});
