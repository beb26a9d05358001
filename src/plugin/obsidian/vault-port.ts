// The VaultPort of the Obsidian host: every read and write goes through Obsidian's own API, so open editors, sync
// plugins and the user's settings see Engram's changes as they see any other plugin's.
import { TFile, TFolder, type App, type TAbstractFile } from 'obsidian';
import { EngramError, errorMessage } from '../../core/errors';
import { vaultPath } from '../../core/path';
import { isListedCopy, isListedNote } from '../../core/ports/vault-listing';
import type { VaultChange, VaultFile, VaultFileInfo, VaultPath, VaultPort } from '../../core/ports';
import { onVaultChange } from './vault-events';

export interface ObsidianVaultOptions {
  /** The config folder to leave out; Obsidian's own (`vault.configDir`) unless given. `.trash` and dot folders are always out. */
  configDir?: string;
}

/** `note.md` and `Note.md` (or NFC/NFD twins) are one file on macOS and Windows: they share one lock. */
function lockKey(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

function info(file: TFile): VaultFileInfo {
  return { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
}

export class ObsidianVault implements VaultPort {
  private readonly vault: App['vault'];
  private readonly fileManager: App['fileManager'];
  private readonly configDir: string;
  /** Per-path queue: two of Engram's own writes to one note never interleave their compare and write. */
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly makingFolders = new Map<string, Promise<void>>();

  constructor(app: Pick<App, 'vault' | 'fileManager'>, options: ObsidianVaultOptions = {}) {
    this.vault = app.vault;
    this.fileManager = app.fileManager;
    this.configDir = options.configDir ?? app.vault.configDir;
  }

  private async locked<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    // Both paths of a rename, in a fixed order, so that a→b and b→a at once cannot deadlock.
    const [key, ...rest] = [...new Set(keys.map(lockKey))].sort();
    if (key === undefined) return fn();
    const prev = this.locks.get(key) ?? Promise.resolve();
    const run = prev.then(
      () => this.locked(rest, fn),
      () => this.locked(rest, fn),
    );
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  /** Obsidian reports failures as plain Errors; judged by what is at `p` now, they become the port's error kinds. */
  private async failure(what: 'read' | 'create' | 'write' | 'append' | 'trash' | 'rename', p: string, e: unknown): Promise<EngramError> {
    if (e instanceof EngramError) return e;
    const there = await this.taken(p).catch(() => true);
    // Someone else made the note first (Vault.create: "File already exists."), or removed it while we worked.
    if (what === 'create' && there) return new EngramError('conflict', `a note already exists at ${p}`);
    if (what !== 'create' && !there) return new EngramError('not-found', `no such note: ${p}`);
    return new EngramError('io', `cannot ${what} ${p}: ${errorMessage(e)}`);
  }

  private fileAt(p: string): TFile {
    const f = this.vault.getAbstractFileByPath(p);
    if (f instanceof TFile) return f;
    throw new EngramError('not-found', `no such note: ${p}`);
  }

  /** Whether anything (a note, a folder, a hidden file Obsidian does not track, a case twin) is at `p`. */
  private async taken(p: string): Promise<boolean> {
    return this.vault.getAbstractFileByPath(p) !== null || (await this.vault.adapter.exists(p));
  }

  /** Creates the folders of `p` that are missing (Vault.create does not). */
  private async ensureFolders(p: string): Promise<void> {
    const segs = p.split('/').slice(0, -1);
    for (let i = 1; i <= segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      const existing: TAbstractFile | null = this.vault.getAbstractFileByPath(dir);
      if (existing instanceof TFolder) continue;
      if (existing) throw new EngramError('conflict', `cannot create a folder at ${dir}: a file is there`);
      await this.createFolder(dir);
    }
  }

  /** Two new notes in one new folder (different paths, so different locks) make the folder once. */
  private createFolder(dir: string): Promise<void> {
    let making = this.makingFolders.get(dir);
    if (!making) {
      making = this.vault
        .createFolder(dir)
        .then(
          () => undefined,
          (e: unknown) => {
            // Made by someone else meanwhile (the user, a sync): that is what we wanted.
            if (!(this.vault.getAbstractFileByPath(dir) instanceof TFolder)) throw e;
          },
        )
        .finally(() => this.makingFolders.delete(dir));
      this.makingFolders.set(dir, making);
    }
    return making;
  }

  list(): Promise<VaultFileInfo[]> {
    const out = this.vault
      .getMarkdownFiles()
      .filter((f) => isListedNote(f.path, this.configDir))
      .map(info);
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return Promise.resolve(out);
  }

  listConflictCopies(): Promise<VaultPath[]> {
    return Promise.resolve(this.vault.getMarkdownFiles().map((f) => f.path).filter((p) => isListedCopy(p, this.configDir)).sort());
  }

  async read(path: VaultPath): Promise<VaultFile> {
    const p = vaultPath(path);
    try {
      const file = this.vault.getAbstractFileByPath(p);
      // Obsidian keeps the text of notes it tracks; its file watcher refreshes that cache. A read that lags a change
      // made outside Obsidian can only make writeIfUnchanged refuse (Vault.process compares with the file itself).
      if (file instanceof TFile) return { ...info(file), text: await this.vault.cachedRead(file) };
      // Files Obsidian does not track (dot folders) are read through its adapter, as the Node vault reads them.
      const st = await this.vault.adapter.stat(p);
      if (st?.type !== 'file') throw new EngramError('not-found', `no such note: ${p}`);
      return { path: p, mtime: st.mtime, size: st.size, text: await this.vault.adapter.read(p) };
    } catch (e) {
      throw await this.failure('read', p, e);
    }
  }

  async exists(path: VaultPath): Promise<boolean> {
    return this.taken(vaultPath(path));
  }

  async create(path: VaultPath, text: string): Promise<VaultFileInfo> {
    const p = vaultPath(path);
    return this.locked([p], async () => {
      if (await this.taken(p)) throw new EngramError('conflict', `a note already exists at ${p}`);
      try {
        await this.ensureFolders(p);
        return info(await this.vault.create(p, text));
      } catch (e) {
        throw await this.failure('create', p, e);
      }
    });
  }

  async writeIfUnchanged(path: VaultPath, expected: string, text: string): Promise<VaultFileInfo> {
    const p = vaultPath(path);
    return this.locked([p], async () => {
      const file = this.fileAt(p);
      try {
        // Vault.process reads and writes in one step against the user's own edits (an open editor, a sync): the
        // compare happens inside it, and throwing there leaves the file as it is.
        await this.vault.process(file, (current) => {
          if (current !== expected) throw new EngramError('conflict', `${p} changed since it was read; not overwritten`);
          return text;
        });
        return info(file);
      } catch (e) {
        throw await this.failure('write', p, e);
      }
    });
  }

  async append(path: VaultPath, text: string): Promise<void> {
    const p = vaultPath(path);
    return this.locked([p], async () => {
      const file = this.fileAt(p);
      try {
        await this.vault.append(file, text);
      } catch (e) {
        throw await this.failure('append', p, e);
      }
    });
  }

  async trash(path: VaultPath): Promise<void> {
    const p = vaultPath(path);
    return this.locked([p], async () => {
      const file = this.fileAt(p);
      try {
        // The user's "Deleted files" setting decides: Obsidian's .trash, the system trash, or gone.
        await this.fileManager.trashFile(file);
      } catch (e) {
        throw await this.failure('trash', p, e);
      }
    });
  }

  /**
   * Renames with Vault.rename, which leaves links in other notes alone, and not FileManager.renameFile, which also
   * rewrites them when the user turned on "Automatically update internal links". Curation rewrites those links
   * itself, as journaled steps that compare each note with the text they were planned from (src/core/curate/apply.ts):
   * a second writer would make every such step a conflict and roll the change back, and Obsidian's own rewrite is
   * neither journaled nor undoable. So curation's rewrite is the one writer, whatever the setting says.
   */
  async rename(from: VaultPath, to: VaultPath): Promise<void> {
    const f = vaultPath(from);
    const t = vaultPath(to);
    return this.locked([f, t], async () => {
      const file = this.fileAt(f);
      if (f === t) return;
      // A case-only rename (`note.md` → `Note.md`) finds "itself" at the target on macOS and Windows: allowed.
      if (lockKey(f) !== lockKey(t) && (await this.taken(t))) throw new EngramError('conflict', `cannot rename ${f}: ${t} already exists`);
      try {
        await this.ensureFolders(t);
        await this.vault.rename(file, t);
      } catch (e) {
        throw await this.failure('rename', f, e);
      }
    });
  }

  /** Every change to a listed note, the engine's own and the user's, as Obsidian reports it. */
  watch(onChange: (change: VaultChange) => void): () => void {
    return onVaultChange(this.vault, this.configDir, onChange);
  }
}
