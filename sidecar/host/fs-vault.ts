// A minimal file-system VaultPort for the daemon (atomic writes, refuses to clobber a changed file).
// TODO(sidecar): replace with the foundation's sidecar/host/node-vault.ts when it lands.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import type { VaultChange, VaultFile, VaultFileInfo, VaultPath, VaultPort } from '../../src/core/ports.js';

const SKIP_DIRS = new Set(['.obsidian', '.trash', '.git', 'node_modules']);

export class FsVault implements VaultPort {
  constructor(readonly root: string) {}

  /** Resolves a vault path and refuses anything that escapes the vault. */
  abs(p: VaultPath): string {
    const full = path.resolve(this.root, p);
    const rel = path.relative(this.root, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new EngramError('refused', `path outside the vault: ${p}`);
    return full;
  }

  async list(): Promise<VaultFileInfo[]> {
    const out: VaultFileInfo[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) await walk(full);
        } else if (e.isFile() && e.name.toLowerCase().endsWith('.md')) {
          const st = await fs.stat(full);
          out.push({ path: path.relative(this.root, full).split(path.sep).join('/'), mtime: st.mtimeMs, size: st.size });
        }
      }
    };
    await walk(this.root);
    return out;
  }

  async read(p: VaultPath): Promise<VaultFile> {
    const full = this.abs(p);
    try {
      const [text, st] = await Promise.all([fs.readFile(full, 'utf8'), fs.stat(full)]);
      return { path: p, text, mtime: st.mtimeMs, size: st.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new EngramError('not-found', `no such note: ${p}`);
      throw e;
    }
  }

  async exists(p: VaultPath): Promise<boolean> {
    return fs.stat(this.abs(p)).then(() => true, () => false);
  }

  private async atomicWrite(full: string, text: string, flagNew: boolean): Promise<VaultFileInfo> {
    await fs.mkdir(path.dirname(full), { recursive: true });
    const tmp = `${full}.${randomBytes(4).toString('hex')}.tmp`;
    const fh = await fs.open(tmp, 'wx');
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (flagNew) {
      // link() fails when the target exists: creation without a check-then-write race.
      try {
        await fs.link(tmp, full);
      } catch (e) {
        await fs.rm(tmp, { force: true });
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new EngramError('conflict', `note exists: ${full}`);
        throw e;
      }
      await fs.rm(tmp, { force: true });
    } else await fs.rename(tmp, full);
    const st = await fs.stat(full);
    return { path: path.relative(this.root, full).split(path.sep).join('/'), mtime: st.mtimeMs, size: st.size };
  }

  create(p: VaultPath, text: string): Promise<VaultFileInfo> {
    return this.atomicWrite(this.abs(p), text, true);
  }

  async writeIfUnchanged(p: VaultPath, expected: string, text: string): Promise<VaultFileInfo> {
    const cur = await this.read(p);
    if (cur.text !== expected) throw new EngramError('conflict', `note changed since it was read: ${p}`);
    return this.atomicWrite(this.abs(p), text, false);
  }

  async trash(p: VaultPath): Promise<void> {
    const from = this.abs(p);
    let to = path.join(this.root, '.trash', path.basename(from));
    for (let n = 2; await fs.stat(to).then(() => true, () => false); n++) {
      to = path.join(this.root, '.trash', `${path.basename(from, '.md')} ${n}.md`);
    }
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.rename(from, to);
  }

  async rename(from: VaultPath, to: VaultPath): Promise<void> {
    const a = this.abs(from);
    const b = this.abs(to);
    if (await fs.stat(b).then(() => true, () => false)) throw new EngramError('conflict', `target exists: ${to}`);
    await fs.mkdir(path.dirname(b), { recursive: true });
    await fs.rename(a, b);
  }

  watch(_onChange: (change: VaultChange) => void): () => void {
    // The daemon watches with chokidar itself (watcher.ts).
    return () => {};
  }
}
