// The one atomic file write of the Node side, with one durability rule: a temp file beside the target (the one temp
// name, host/temp-files.ts), fsync it, rename it over the target, fsync the folder. Any failure before the rename
// removes the temp file (a full disk leaves no empty temp behind); one a kill left is removed by the next host's crash
// cleanup. A reader sees the old file or the new one, whole. Client-safe: no npm imports (hooks load it).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { tempPathFor } from './temp-files.js';

export interface AtomicWriteOptions {
  /** Permission bits, applied exactly (e.g. 0o600 for state and secrets); else the replaced file's, else 0o644 under the umask. */
  mode?: number;
  /** Called between the synced temp file and the rename: the fault points `before-rename` and `before-snapshot-rename`. */
  beforeRename?: () => void;
}

export interface AtomicCommitOptions extends AtomicWriteOptions {
  /**
   * Puts the synced temp file in place instead of a plain rename, e.g. a "create if absent" (link) or a compare just
   * before the rename; it may refuse by throwing. The temp file is removed afterwards whatever it did.
   */
  commit?: (tmp: string, target: string) => Promise<void>;
  /** Whether to create a missing folder (default true); a rewrite of an existing note must not make one. */
  mkdir?: boolean;
}

/** A folder that cannot be synced on this file system (the rename is still atomic there). */
function cannotSyncFolder(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EINVAL' || code === 'ENOTSUP' || code === 'EISDIR' || code === 'EPERM';
}

/** fsyncs a folder so that a rename in it survives a crash. Windows cannot open folders; there the rename is enough. */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const h = await fsp.open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch (e) {
    if (!cannotSyncFolder(e)) throw e;
  }
}

function fsyncDirSync(dir: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (!cannotSyncFolder(e)) throw e;
  }
}

/** The permission bits of the file a write replaces (so the replacement keeps them), or undefined. */
function existingMode(target: string): number | undefined {
  try {
    return fs.statSync(target).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Atomically replaces (or creates) `target` with `data`, creating its folder; see the rule at the top. */
export async function atomicWriteFile(target: string, data: string | Uint8Array, options: AtomicCommitOptions = {}): Promise<void> {
  const dir = path.dirname(target);
  if (options.mkdir !== false) await fsp.mkdir(dir, { recursive: true });
  const mode = options.mode ?? (await fsp.stat(target).then((st) => st.mode & 0o7777, () => undefined));
  const tmp = tempPathFor(target);
  try {
    const h = await fsp.open(tmp, 'wx', mode ?? 0o644);
    try {
      // open() applies the umask; an explicit or inherited mode must be exact.
      if (mode !== undefined && process.platform !== 'win32') await h.chmod(mode);
      await h.writeFile(data);
      await h.sync();
    } finally {
      await h.close();
    }
    options.beforeRename?.();
    await (options.commit ?? fsp.rename)(tmp, target);
  } finally {
    // Gone after a rename; still there after a failure or a link.
    await fsp.rm(tmp, { force: true });
  }
  await fsyncDir(dir);
}

/** The same write for synchronous callers (the hook's spool entry, install files, small state files). */
export function atomicWriteFileSync(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true });
  const mode = options.mode ?? existingMode(target);
  const tmp = tempPathFor(target);
  try {
    const fd = fs.openSync(tmp, 'wx', mode ?? 0o644);
    try {
      if (mode !== undefined && process.platform !== 'win32') fs.fchmodSync(fd, mode);
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(tmp, target);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  fsyncDirSync(dir);
}
