// Obsidian's vault API from obsidian-test-mocks, backed by a real folder: the mocks' Vault, FileManager and
// MetadataCache over a DataAdapter that reads and writes files on disk. The mocks keep files in memory and leave
// TFile.stat at zero, trash by deleting, and never rewrite links; this fills in what real Obsidian does there
// (stat kept current, the metadata cache filled, the "Deleted files" and "Automatically update internal links"
// settings, the file watcher's events for edits made outside Obsidian), so a plugin host can run over a vault other
// processes also see. The mocks' App is not used: its workspace needs a DOM, and these tests run in Node.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { App as AppOriginal, DataAdapter, DataWriteOptions, ListedFiles, Stat } from 'obsidian';
import { listFiles } from './temp';
import { FileManager, MetadataCache, TAbstractFile, TFile, TFolder, Vault } from 'obsidian-test-mocks/obsidian';

/** What the user chose under Settings → Files and links → Deleted files. */
export type TrashOption = 'local' | 'system' | 'none';

export interface FolderVaultOptions {
  trash?: TrashOption;
  /** Settings → Files and links → Automatically update internal links. */
  autoUpdateLinks?: boolean;
}

function isDotPath(p: string): boolean {
  return p.split('/').some((s) => s.startsWith('.'));
}

/** A DataAdapter over a folder on disk (Obsidian's FileSystemAdapter, without the system trash). */
class FolderAdapter implements DataAdapter {
  constructor(readonly root: string) {}

  full(p: string): string {
    return path.join(this.root, ...p.split('/').filter((s) => s !== ''));
  }

  getName(): string {
    return path.basename(this.root);
  }

  /** FileSystemAdapter's: the vault's folder on disk (how the plugin knows it may host). */
  getBasePath(): string {
    return this.root;
  }

  async exists(p: string): Promise<boolean> {
    return fs.existsSync(this.full(p));
  }

  async stat(p: string): Promise<Stat | null> {
    const st = await fsp.stat(this.full(p)).catch(() => null);
    if (!st) return null;
    return { type: st.isDirectory() ? 'folder' : 'file', ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size };
  }

  async list(p: string): Promise<ListedFiles> {
    const out: ListedFiles = { files: [], folders: [] };
    for (const d of await fsp.readdir(this.full(p), { withFileTypes: true })) {
      const rel = p ? `${p}/${d.name}` : d.name;
      (d.isDirectory() ? out.folders : out.files).push(rel);
    }
    return out;
  }

  async read(p: string): Promise<string> {
    return fsp.readFile(this.full(p), 'utf8');
  }

  async readBinary(p: string): Promise<ArrayBuffer> {
    const b = await fsp.readFile(this.full(p));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async write(p: string, data: string, _options?: DataWriteOptions): Promise<void> {
    await fsp.mkdir(path.dirname(this.full(p)), { recursive: true });
    await fsp.writeFile(this.full(p), data);
  }

  async writeBinary(p: string, data: ArrayBuffer): Promise<void> {
    await fsp.mkdir(path.dirname(this.full(p)), { recursive: true });
    await fsp.writeFile(this.full(p), Buffer.from(data));
  }

  async append(p: string, data: string): Promise<void> {
    await fsp.appendFile(this.full(p), data);
  }

  async appendBinary(p: string, data: ArrayBuffer): Promise<void> {
    await fsp.appendFile(this.full(p), Buffer.from(data));
  }

  async process(p: string, fn: (data: string) => string): Promise<string> {
    const next = fn(await this.read(p));
    await this.write(p, next);
    return next;
  }

  getResourcePath(p: string): string {
    return `app://local/${p}`;
  }

  async mkdir(p: string): Promise<void> {
    await fsp.mkdir(this.full(p), { recursive: true });
  }

  /** No system trash in a test: Obsidian then falls back to its own .trash folder. */
  async trashSystem(): Promise<boolean> {
    return false;
  }

  /** Obsidian's .trash keeps the file's name, with " 1", " 2" … when that name is taken there. */
  async trashLocal(p: string): Promise<void> {
    const dir = path.join(this.root, '.trash');
    await fsp.mkdir(dir, { recursive: true });
    const ext = path.extname(p);
    const stem = path.basename(p, ext);
    let target = path.join(dir, `${stem}${ext}`);
    for (let n = 1; fs.existsSync(target); n++) target = path.join(dir, `${stem} ${n}${ext}`);
    await fsp.rename(this.full(p), target);
  }

  async rmdir(p: string, recursive: boolean): Promise<void> {
    await fsp.rm(this.full(p), { recursive, force: false });
  }

  async remove(p: string): Promise<void> {
    await fsp.rm(this.full(p));
  }

  async rename(p: string, to: string): Promise<void> {
    await fsp.mkdir(path.dirname(this.full(to)), { recursive: true });
    await fsp.rename(this.full(p), this.full(to));
  }

  async copy(p: string, to: string): Promise<void> {
    await fsp.copyFile(this.full(p), this.full(to));
  }
}

export interface FolderVault {
  root: string;
  /** The mocks' objects, for spies. */
  vault: Vault;
  fileManager: FileManager;
  metadataCache: MetadataCache;
  /** The same objects typed as Obsidian's, for the code under test. */
  app: Pick<AppOriginal, 'vault' | 'fileManager' | 'metadataCache'>;
  /** Writes a file as the user's editor or a sync tool would, then reports it as Obsidian's file watcher does. */
  userWrite(p: string, text: string): Promise<void>;
  /** Every file on disk, dot folders included, keyed by vault path. */
  allFiles(): Record<string, string>;
}


/** Writes `files` into `root` (which must exist) and opens it as an Obsidian vault. */
export function openFolderVault(root: string, files: Record<string, string> = {}, options: FolderVaultOptions = {}): FolderVault {
  for (const [p, text] of Object.entries(files)) {
    const full = path.join(root, ...p.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  const adapter = new FolderAdapter(root);
  const vault = Vault.create2__(adapter);
  const app = { vault } as unknown as Parameters<typeof FileManager.create__>[0];
  const fileManager = FileManager.create__(app);

  const refreshStat = (file: TFile): void => {
    const st = fs.statSync(adapter.full(file.path));
    file.stat = { ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size };
  };
  // Obsidian updates a file's stat before it reports the change; registered first, this runs before any listener.
  for (const name of ['create', 'modify', 'rename']) {
    vault.on(name, (file: unknown) => {
      if (file instanceof TFile) refreshStat(file);
    });
  }
  // The mocks' metadata cache parses a note on create and modify through readSync__, which they offer only in memory.
  vault.readSync__ = (file: TFile): string => fs.readFileSync(adapter.full(file.path), 'utf8');
  const metadataCache = MetadataCache.create2__(app, vault);

  const register = (p: string): TFile => {
    const segs = p.split('/');
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      if (!vault.getFolderByPath(dir)) vault.setVaultAbstractFile__(dir, TFolder.create__(vault, dir));
    }
    const file = TFile.create__(vault, p);
    vault.setVaultAbstractFile__(p, file);
    refreshStat(file);
    return file;
  };
  // Obsidian's tree leaves out dot files and dot folders (the config folder, .trash). While it loads a vault it reports
  // every file as created (why the index starts only on layout ready); that also fills the metadata cache.
  for (const p of listFiles(root).filter((x) => !isDotPath(x)).sort()) vault.trigger('create', register(p));

  // Real Vault.create and Vault.createFolder refuse what exists (the mocks overwrite it).
  const create = vault.create.bind(vault);
  vault.create = async (p: string, data: string): Promise<TFile> => {
    if (vault.getAbstractFileByPath(p) || (await adapter.exists(p))) throw new Error('File already exists.');
    return create(p, data);
  };
  const createFolder = vault.createFolder.bind(vault);
  vault.createFolder = async (p: string): Promise<TFolder> => {
    if (vault.getAbstractFileByPath(p)) throw new Error('Folder already exists.');
    return createFolder(p);
  };
  // Real Vault.trash honours `system` (the mocks delete in both cases).
  vault.trash = async (file: TAbstractFile, system: boolean): Promise<void> => {
    if (!(system && (await adapter.trashSystem()))) await adapter.trashLocal(file.path);
    vault.deleteVaultAbstractFile__(file.path);
    vault.trigger('delete', file);
  };
  const trash = options.trash ?? 'local';
  fileManager.trashFile = async (file: TAbstractFile): Promise<void> => {
    if (trash === 'none') await vault.delete(file);
    else await vault.trash(file, trash === 'system');
  };
  if (options.autoUpdateLinks) {
    // A small model of Obsidian's link update: wikilinks naming the note by path or by name follow it.
    fileManager.renameFile = async (file: TAbstractFile, newPath: string): Promise<void> => {
      const before = { path: file.path.replace(/\.md$/, ''), name: file instanceof TFile ? file.basename : file.name };
      await vault.rename(file, newPath);
      if (!(file instanceof TFile)) return;
      const after = { path: file.path.replace(/\.md$/, ''), name: file.basename };
      const linkTo = (s: string) => new RegExp(`\\[\\[${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\]|#])`, 'g');
      const relink = (t: string) => t.replace(linkTo(before.path), `[[${after.path}`).replace(linkTo(before.name), `[[${after.name}`);
      for (const other of vault.getMarkdownFiles()) {
        if (other === file) continue;
        const text = await vault.read(other);
        if (relink(text) !== text) await vault.process(other, relink);
      }
    };
  }

  return {
    root,
    vault,
    fileManager,
    metadataCache,
    app: { vault: vault.asOriginalType2__(), fileManager: fileManager.asOriginalType__(), metadataCache: metadataCache.asOriginalType2__() },
    async userWrite(p: string, text: string): Promise<void> {
      await adapter.write(p, text);
      if (isDotPath(p)) return;
      const existing = vault.getFileByPath(p);
      if (existing) vault.trigger('modify', existing);
      else vault.trigger('create', register(p));
    },
    allFiles(): Record<string, string> {
      return Object.fromEntries(listFiles(root).map((p) => [p, fs.readFileSync(path.join(root, p), 'utf8')]));
    },
  };
}
