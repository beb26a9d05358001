// The VaultPort of the Node host: the vault as a folder on disk. Writes are atomic (node/atomic-write.ts) and never
// overwrite a note that changed since the engine read it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import { vaultPath } from '../../src/core/path.js';
import { isListedCopy, isListedNote, TRASH_DIR } from '../../src/core/ports/vault-listing.js';
import type { VaultChange, VaultFile, VaultFileInfo, VaultPath, VaultPort } from '../../src/core/ports.js';
import { atomicWriteFile, fsyncDir } from './atomic-write.js';

export interface NodeVaultOptions {
  /** Obsidian's config folder if it is not a dot folder (dot folders are never listed anyway). */
  configDir?: string;
  /** Called between a note's synced temp file and its rename (fault injection: `ENGRAM_FAULT=before-rename`). */
  beforeRename?: () => void;
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

function lockKey(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

export class NodeVault implements VaultPort {
  readonly root: string;
  private readonly configDir: string | undefined;
  private readonly beforeRename: (() => void) | undefined;
  private readonly listeners = new Set<(change: VaultChange) => void>();
  /** Per-path queue: two writes from this process never interleave their compare and rename (no lost update). */
  private readonly locks = new Map<string, Promise<unknown>>();
  /** The vault's real path, and folders already checked to lie inside it (a symlink must never lead out). */
  private realRoot: Promise<string> | undefined;
  private readonly insideDirs = new Map<string, Promise<boolean>>();

  constructor(root: string, options: NodeVaultOptions = {}) {
    this.root = path.resolve(root);
    this.configDir = options.configDir;
    this.beforeRename = options.beforeRename;
  }

  /** Absolute path of a vault path; refuses anything that would leave the vault. */
  abs(p: VaultPath): string {
    return path.join(this.root, ...vaultPath(p).split('/'));
  }

  private ioError(what: string, p: string, e: unknown): EngramError {
    if (code(e) === 'ENOENT' && what === 'create') {
      // A folder that could not be made (a read-only vault reports ENOENT from a recursive mkdir): say why.
      try {
        fs.accessSync(this.root, fs.constants.W_OK);
      } catch (denied) {
        return new EngramError('io', `cannot create ${p}: ${errorMessage(denied)}`);
      }
      return new EngramError('io', `cannot create ${p}: ${errorMessage(e)}`);
    }
    if (code(e) === 'ENOENT') return new EngramError('not-found', `no such note: ${p}`);
    if (e instanceof EngramError) return e;
    return new EngramError('io', `cannot ${what} ${p}: ${errorMessage(e)}`);
  }

  private async locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const k = lockKey(key);
    const prev = this.locks.get(k) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(k, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(k) === tail) this.locks.delete(k);
    }
  }

  /** Whether `real` (a resolved path) lies inside the vault's real folder. */
  private async within(real: string): Promise<boolean> {
    const root = await (this.realRoot ??= fsp.realpath(this.root).catch(() => this.root));
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  }

  /**
   * Whether the file at `full` really lies inside the vault: a symbolic link (the file itself, or a folder on its way)
   * that resolves outside it is never read or listed, so a link in a vault cannot leak `~/.ssh` into recall.
   */
  private async staysInside(full: string, isLink: boolean): Promise<boolean> {
    if (isLink) return this.within(await fsp.realpath(full));
    const dir = path.dirname(full);
    let inside = this.insideDirs.get(dir);
    if (!inside) {
      inside = fsp.realpath(dir).then((real) => this.within(real), () => true);
      this.insideDirs.set(dir, inside);
    }
    return inside;
  }

  private emit(change: VaultChange): void {
    for (const l of [...this.listeners]) l(change);
  }

  /** Vault paths of every listed note, without a stat per file (for whole-vault scans such as `engram check`). */
  async listPaths(): Promise<VaultPath[]> {
    const out: VaultPath[] = [];
    await this.walk(this.root, '', (rel) => {
      out.push(rel);
    });
    await this.linksSettled();
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async listConflictCopies(): Promise<VaultPath[]> {
    const out: VaultPath[] = [];
    await this.walk(this.root, '', (rel) => out.push(rel), isListedCopy);
    await this.linksSettled();
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async list(): Promise<VaultFileInfo[]> {
    const out: VaultFileInfo[] = [];
    const stats: Promise<void>[] = [];
    await this.walk(this.root, '', (rel, full) => {
      stats.push(
        fsp.stat(full).then(
          (st) => {
            if (st.isFile()) out.push({ path: rel, mtime: st.mtimeMs, size: st.size });
          },
          // A note deleted between readdir and stat is simply not listed.
          () => undefined,
        ),
      );
    });
    await Promise.all(stats);
    await this.linksSettled();
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  private async walk(dirAbs: string, rel: string, onNote: (rel: string, full: string) => void, listed: (p: VaultPath, configDir?: string) => boolean = isListedNote): Promise<void> {
    if (rel === '') {
      let st: fs.Stats;
      try {
        st = await fsp.stat(this.root);
      } catch {
        throw new EngramError('not-found', `vault path does not exist: ${this.root}`, 'set it with `engram configure vault_path <path>`');
      }
      if (!st.isDirectory()) throw new EngramError('not-found', `vault path is not a folder: ${this.root}`);
    }
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dirAbs, { withFileTypes: true });
    } catch (e) {
      // A folder removed while we walk, or one we may not read, is skipped rather than failing the whole listing.
      if (code(e) === 'ENOENT' || code(e) === 'EACCES' || code(e) === 'EPERM') return;
      throw new EngramError('io', `cannot list ${dirAbs}: ${errorMessage(e)}`);
    }
    const subdirs: Promise<void>[] = [];
    for (const d of entries) {
      if (d.name.startsWith('.')) continue;
      if (rel === '' && (d.name === this.configDir || d.name === TRASH_DIR)) continue;
      const relPath = rel ? `${rel}/${d.name}` : d.name;
      const full = path.join(dirAbs, d.name);
      if (d.isDirectory()) subdirs.push(this.walk(full, relPath, onNote, listed));
      else if (d.isFile() && listed(relPath, this.configDir)) onNote(relPath, full);
      else if (d.isSymbolicLink() && listed(relPath, this.configDir)) {
        // A linked note is listed only when it resolves inside the vault.
        this.pendingLinks.push(fsp.realpath(full).then((real) => this.within(real)).then((ok) => (ok ? onNote(relPath, full) : undefined), () => undefined));
      }
    }
    await Promise.all(subdirs);
  }

  private pendingLinks: Promise<void>[] = [];

  private async linksSettled(): Promise<void> {
    while (this.pendingLinks.length) await Promise.all(this.pendingLinks.splice(0));
  }

  async read(p: VaultPath): Promise<VaultFile> {
    const full = this.abs(p);
    try {
      const link = await fsp.lstat(full);
      const isLink = link.isSymbolicLink();
      if (!(await this.staysInside(full, isLink))) {
        throw new EngramError('refused', `${vaultPath(p)} is a link to a file outside the vault; Engram never reads it`);
      }
      const [text, st] = await Promise.all([fsp.readFile(full, 'utf8'), isLink ? fsp.stat(full) : Promise.resolve(link)]);
      return { path: vaultPath(p), text, mtime: st.mtimeMs, size: st.size, ...(isLink ? { symlink: true } : {}) };
    } catch (e) {
      throw this.ioError('read', p, e);
    }
  }

  async exists(p: VaultPath): Promise<boolean> {
    try {
      await fsp.access(this.abs(p));
      return true;
    } catch (e) {
      if (e instanceof EngramError) throw e;
      return false;
    }
  }

  async create(p: VaultPath, text: string): Promise<VaultFileInfo> {
    return this.locked(vaultPath(p), () => this.createNow(p, text));
  }

  async writeIfUnchanged(p: VaultPath, expected: string, text: string): Promise<VaultFileInfo> {
    return this.locked(vaultPath(p), () => this.writeNow(p, expected, text));
  }

  /** O_APPEND without O_CREAT: the kernel puts each write at the end, so appends from other processes are never lost. */
  async append(p: VaultPath, text: string): Promise<void> {
    const rel = vaultPath(p);
    const full = this.abs(rel);
    try {
      const link = await fsp.lstat(full);
      if (!(await this.staysInside(full, link.isSymbolicLink()))) throw new EngramError('refused', `${rel} is a link to a file outside the vault; Engram never writes it`);
      const fh = await fsp.open(full, fs.constants.O_WRONLY | fs.constants.O_APPEND);
      try {
        await fh.write(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      this.emit({ kind: 'modify', path: rel });
    } catch (e) {
      throw this.ioError('append', rel, e);
    }
  }

  async trash(p: VaultPath): Promise<void> {
    return this.locked(vaultPath(p), () => this.trashNow(p));
  }

  async rename(from: VaultPath, to: VaultPath): Promise<void> {
    // Take both locks in a fixed order so that a→b and b→a at the same time cannot deadlock.
    const [first, second] = [lockKey(vaultPath(from)), lockKey(vaultPath(to))].sort();
    return this.locked(first, () => (first === second ? this.renameNow(from, to) : this.locked(second, () => this.renameNow(from, to))));
  }

  private async createNow(p: VaultPath, text: string): Promise<VaultFileInfo> {
    const rel = vaultPath(p);
    const full = this.abs(rel);
    try {
      await atomicWriteFile(full, text, {
        beforeRename: this.beforeRename,
        commit: async (tmp) => {
          try {
            // link() fails with EEXIST when the target exists: an atomic "create if absent" that never shows a half file.
            await fsp.link(tmp, full);
          } catch (e) {
            if (code(e) === 'EEXIST') throw new EngramError('conflict', `a note already exists at ${rel}`);
            // File systems without hard links (FAT, some network shares): check, then rename.
            if (await this.exists(rel)) throw new EngramError('conflict', `a note already exists at ${rel}`);
            await fsp.rename(tmp, full);
          }
        },
      });
      const st = await fsp.stat(full);
      this.emit({ kind: 'create', path: rel });
      return { path: rel, mtime: st.mtimeMs, size: st.size };
    } catch (e) {
      throw this.ioError('create', rel, e);
    }
  }

  private async writeNow(p: VaultPath, expected: string, text: string): Promise<VaultFileInfo> {
    const rel = vaultPath(p);
    const full = this.abs(rel);
    try {
      await atomicWriteFile(full, text, {
        mkdir: false,
        beforeRename: this.beforeRename,
        commit: async (tmp) => {
          // Compare as late as possible, after the slow part (writing and syncing the new content), to keep the window small.
          const bytes = await fsp.readFile(full);
          const current = bytes.toString('utf8');
          if (current !== expected) throw new EngramError('conflict', `${rel} changed since it was read; not overwritten`);
          // Bytes that are not UTF-8 were read as U+FFFD; writing the text back would lose them for good.
          if (current.includes('\uFFFD') && !Buffer.from(current, 'utf8').equals(bytes)) {
            throw new EngramError('refused', `${rel} is not valid UTF-8; not rewritten`, 'convert the note to UTF-8 first');
          }
          await fsp.rename(tmp, full);
        },
      });
      const st = await fsp.stat(full);
      this.emit({ kind: 'modify', path: rel });
      return { path: rel, mtime: st.mtimeMs, size: st.size };
    } catch (e) {
      throw this.ioError('write', rel, e);
    }
  }

  private async trashNow(p: VaultPath): Promise<void> {
    const rel = vaultPath(p);
    const full = this.abs(rel);
    try {
      await fsp.lstat(full);
      // Keep the folder structure inside .trash so that notes with the same name from different folders both survive.
      const dir = path.join(this.root, TRASH_DIR, ...rel.split('/').slice(0, -1));
      await fsp.mkdir(dir, { recursive: true });
      const ext = path.extname(full);
      const stem = path.basename(full, ext);
      let target = path.join(dir, `${stem}${ext}`);
      for (let n = 1; fs.existsSync(target); n++) target = path.join(dir, `${stem} ${n}${ext}`);
      await fsp.rename(full, target);
      await fsyncDir(path.dirname(full));
      this.emit({ kind: 'delete', path: rel });
    } catch (e) {
      throw this.ioError('trash', rel, e);
    }
  }

  private async renameNow(from: VaultPath, to: VaultPath): Promise<void> {
    const f = vaultPath(from);
    const t = vaultPath(to);
    if (f === t) return;
    const fAbs = this.abs(f);
    const tAbs = this.abs(t);
    try {
      const src = await fsp.lstat(fAbs);
      const dst = await fsp.lstat(tAbs).catch(() => null);
      // On case-insensitive file systems `note.md` → `Note.md` finds the target "existing": it is the same file.
      if (dst && !(dst.ino === src.ino && dst.dev === src.dev)) throw new EngramError('conflict', `cannot rename ${f}: ${t} already exists`);
      await fsp.mkdir(path.dirname(tAbs), { recursive: true });
      await fsp.rename(fAbs, tAbs);
      await fsyncDir(path.dirname(tAbs));
      if (path.dirname(tAbs) !== path.dirname(fAbs)) await fsyncDir(path.dirname(fAbs));
      this.emit({ kind: 'rename', path: t, oldPath: f });
    } catch (e) {
      throw this.ioError('rename', f, e);
    }
  }

  /**
   * Reports the changes made through this port. Changes made by others (the user's editor, sync tools) are not seen
   * yet: the daemon's chokidar watcher (sidecar host) replaces this, see docs/ARCHITECTURE.md.
   */
  watch(onChange: (change: VaultChange) => void): () => void {
    this.listeners.add(onChange);
    return () => {
      this.listeners.delete(onChange);
    };
  }
}
