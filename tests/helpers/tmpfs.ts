// Small real file systems for the full-disk and read-only tests: a tmpfs where the sandbox lets us mount one (root in
// a container that allows it); the tests that need one are skipped elsewhere.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Whether this sandbox lets us mount a tmpfs (root in a container that allows it). */
export const canMount = (() => {
  if (process.platform !== 'linux') return false;
  const dir = fs.mkdtempSync('/tmp/engram-mnt-probe-');
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    if (r.status !== 0) return false;
    spawnSync('umount', [dir]);
    return true;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

export function mountTmpfs(dir: string, size: string): void {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
}
export function remount(dir: string, mode: 'ro' | 'rw'): void {
  const r = spawnSync('mount', ['-o', `remount,${mode}`, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`remount failed: ${r.stderr}`);
}
/** Fills a file system until it refuses another byte. */
export function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    fs.closeSync(fd);
  }
  // The last partial block too.
  const fd2 = fs.openSync(filler, 'a');
  try {
    for (;;) fs.writeSync(fd2, Buffer.alloc(1, 1));
  } catch {
    // full
  } finally {
    fs.closeSync(fd2);
  }
  return filler;
}
