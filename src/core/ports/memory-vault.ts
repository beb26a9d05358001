// An in-memory VaultPort for tests and dry runs. It behaves like the Node and Obsidian adapters
// (the conformance suite in tests/core/ports-conformance.ts checks that), and can simulate edits
// made by someone else (the user, a sync tool) so that conflict handling can be tested.
import { EngramError } from '../errors.js';
import { vaultBasename, vaultDirname, vaultPath } from '../path.js';
import { isListedCopy, isListedNote, TRASH_DIR } from './vault-listing.js';
import { systemClock, type Clock, type VaultChange, type VaultFile, type VaultFileInfo, type VaultPath, type VaultPort } from '../ports.js';

interface Entry {
  text: string;
  mtime: number;
  /** UTF-8 size, kept with the text: encoding every note at each listing costs 50 ms for 13,000 notes. */
  size: number;
}

export interface MemoryVaultOptions {
  /** Initial files, vault path → text. Any file may be given; only `.md` files outside hidden folders are listed. */
  files?: Record<string, string>;
  clock?: Clock;
  /** Obsidian's config folder if it is not a dot folder (dot folders are never listed anyway). */
  configDir?: string;
  /** Behave like macOS/Windows file systems: `Note.md` and `note.md` (or NFC/NFD twins) are the same file. */
  caseInsensitive?: boolean;
}

const encoder = new TextEncoder();

// The port is asynchronous; this vault is not, so its errors become rejections rather than synchronous throws.
function rejected(e: unknown): Promise<never> {
  return Promise.reject(e instanceof Error ? e : new Error(String(e)));
}

export class MemoryVault implements VaultPort {
  private readonly files = new Map<string, Entry>();
  private readonly listeners = new Set<(change: VaultChange) => void>();
  private readonly clock: Clock;
  private readonly configDir: string | undefined;
  private readonly caseInsensitive: boolean;
  private lastMtime = 0;

  constructor(options: MemoryVaultOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.configDir = options.configDir;
    this.caseInsensitive = options.caseInsensitive ?? false;
    for (const [p, text] of Object.entries(options.files ?? {})) this.files.set(vaultPath(p), this.entry(text));
  }

  /** Strictly increasing mtimes, so that "changed since" checks never tie within one test. */
  private tick(): number {
    this.lastMtime = Math.max(this.clock.now(), this.lastMtime + 1);
    return this.lastMtime;
  }

  private entry(text: string): Entry {
    return { text, mtime: this.tick(), size: encoder.encode(text).length };
  }

  private info(path: string, e: Entry): VaultFileInfo {
    return { path, mtime: e.mtime, size: e.size };
  }

  private emit(change: VaultChange): void {
    // Copy first: a listener may stop watching while being called.
    for (const l of [...this.listeners]) l(change);
  }

  list(): Promise<VaultFileInfo[]> {
    const out: VaultFileInfo[] = [];
    for (const [p, e] of this.files) if (isListedNote(p, this.configDir)) out.push(this.info(p, e));
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return Promise.resolve(out);
  }

  listConflictCopies(): Promise<VaultPath[]> {
    return Promise.resolve([...this.files.keys()].filter((p) => isListedCopy(p, this.configDir)).sort());
  }

  read(path: VaultPath): Promise<VaultFile> {
    try {
      const p = vaultPath(path);
      const e = this.files.get(this.stored(p));
      if (!e) throw new EngramError('not-found', `no such note: ${p}`);
      return Promise.resolve({ ...this.info(p, e), text: e.text });
    } catch (err) {
      return rejected(err);
    }
  }

  exists(path: VaultPath): Promise<boolean> {
    try {
      return Promise.resolve(this.files.has(this.stored(vaultPath(path))));
    } catch (err) {
      return rejected(err);
    }
  }

  create(path: VaultPath, text: string): Promise<VaultFileInfo> {
    try {
      const p = vaultPath(path);
      if (this.findCaseInsensitive(p) !== undefined) throw new EngramError('conflict', `a note already exists at ${p}`);
      const e = this.entry(text);
      this.files.set(p, e);
      this.emit({ kind: 'create', path: p });
      return Promise.resolve(this.info(p, e));
    } catch (err) {
      return rejected(err);
    }
  }

  writeIfUnchanged(path: VaultPath, expected: string, text: string): Promise<VaultFileInfo> {
    try {
      const p = this.stored(vaultPath(path));
      const e = this.files.get(p);
      if (!e) throw new EngramError('not-found', `no such note: ${p}`);
      if (e.text !== expected) throw new EngramError('conflict', `${p} changed since it was read; not overwritten`);
      const next = this.entry(text);
      this.files.set(p, next);
      this.emit({ kind: 'modify', path: p });
      return Promise.resolve(this.info(p, next));
    } catch (err) {
      return rejected(err);
    }
  }

  append(path: VaultPath, text: string): Promise<void> {
    try {
      const p = this.stored(vaultPath(path));
      const e = this.files.get(p);
      if (!e) throw new EngramError('not-found', `no such note: ${p}`);
      this.files.set(p, this.entry(e.text + text));
      this.emit({ kind: 'modify', path: p });
      return Promise.resolve();
    } catch (err) {
      return rejected(err);
    }
  }

  trash(path: VaultPath): Promise<void> {
    try {
      const p = this.stored(vaultPath(path));
      const e = this.files.get(p);
      if (!e) throw new EngramError('not-found', `no such note: ${p}`);
      this.files.delete(p);
      this.files.set(this.freeTrashPath(p), e);
      this.emit({ kind: 'delete', path: p });
      return Promise.resolve();
    } catch (err) {
      return rejected(err);
    }
  }

  rename(from: VaultPath, to: VaultPath): Promise<void> {
    try {
      const f = this.stored(vaultPath(from));
      const t = vaultPath(to);
      const e = this.files.get(f);
      if (!e) throw new EngramError('not-found', `no such note: ${f}`);
      if (f === t) return Promise.resolve();
      const clash = this.findCaseInsensitive(t);
      // A case-only rename (`note.md` → `Note.md`) is allowed; another file at the target is not.
      if (clash !== undefined && clash !== f) throw new EngramError('conflict', `cannot rename ${f}: ${t} already exists`);
      this.files.delete(f);
      this.files.set(t, { ...e });
      this.emit({ kind: 'rename', path: t, oldPath: f });
      return Promise.resolve();
    } catch (err) {
      return rejected(err);
    }
  }

  watch(onChange: (change: VaultChange) => void): () => void {
    this.listeners.add(onChange);
    return () => {
      this.listeners.delete(onChange);
    };
  }

  // --- test helpers: changes made by someone other than the engine ---

  /** Writes a file as the user or a sync tool would (no conflict check), and reports it to watchers. */
  externalWrite(path: VaultPath, text: string): void {
    const p = vaultPath(path);
    const existed = this.files.has(p);
    this.files.set(p, this.entry(text));
    this.emit({ kind: existed ? 'modify' : 'create', path: p });
  }

  /** Deletes a file as the user would. */
  externalDelete(path: VaultPath): void {
    const p = vaultPath(path);
    if (this.files.delete(p)) this.emit({ kind: 'delete', path: p });
  }

  /** Every file, including hidden and trashed ones (for assertions). */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [p, e] of [...this.files].sort(([a], [b]) => (a < b ? -1 : 1))) out[p] = e.text;
    return out;
  }

  /** The stored spelling of a path (on a case-insensitive vault `note.md` finds `Note.md`). */
  private stored(p: string): string {
    return this.findCaseInsensitive(p) ?? p;
  }

  private findCaseInsensitive(p: string): string | undefined {
    if (this.files.has(p)) return p;
    if (!this.caseInsensitive) return undefined;
    const k = p.normalize('NFC').toLowerCase();
    for (const q of this.files.keys()) if (q.normalize('NFC').toLowerCase() === k) return q;
    return undefined;
  }

  private freeTrashPath(p: string): string {
    const dir = vaultDirname(p);
    const base = vaultBasename(p);
    const dot = base.lastIndexOf('.');
    const stem = dot > 0 ? base.slice(0, dot) : base;
    const ext = dot > 0 ? base.slice(dot) : '';
    const prefix = dir ? `${TRASH_DIR}/${dir}/` : `${TRASH_DIR}/`;
    let candidate = `${prefix}${base}`;
    for (let n = 1; this.files.has(candidate); n++) candidate = `${prefix}${stem} ${n}${ext}`;
    return candidate;
  }
}
