// Obsidian's vault and metadata-cache events as the engine's VaultChanges: one by one for the vault port's watch(),
// and coalesced into debounced batches for the index (followVault).
import { TFile, type App, type EventRef, type TAbstractFile, type Vault } from 'obsidian';
import { isListedNote } from '../../core/ports/vault-listing';
import type { VaultChange } from '../../core/ports';

function listed(file: TAbstractFile, path: string, configDir: string): boolean {
  return file instanceof TFile && isListedNote(path, configDir);
}

/**
 * Calls `onChange` for each create, modify, delete and rename of a listed Markdown note (the notes `VaultPort.list`
 * returns). A rename across the listing's edge (into `.trash`, to a `.txt`) arrives as the create or delete it is for
 * the index. Returns a function that unregisters every listener.
 */
export function onVaultChange(vault: Vault, configDir: string, onChange: (change: VaultChange) => void): () => void {
  const refs: EventRef[] = [
    vault.on('create', (file) => {
      if (listed(file, file.path, configDir)) onChange({ kind: 'create', path: file.path });
    }),
    vault.on('modify', (file) => {
      if (listed(file, file.path, configDir)) onChange({ kind: 'modify', path: file.path });
    }),
    vault.on('delete', (file) => {
      if (listed(file, file.path, configDir)) onChange({ kind: 'delete', path: file.path });
    }),
    vault.on('rename', (file, oldPath) => {
      const now = listed(file, file.path, configDir);
      const before = listed(file, oldPath, configDir);
      if (now && before) onChange({ kind: 'rename', path: file.path, oldPath });
      else if (now) onChange({ kind: 'create', path: file.path });
      else if (before) onChange({ kind: 'delete', path: oldPath });
    }),
  ];
  return () => {
    for (const ref of refs) vault.offref(ref);
  };
}

/** Pending changes of one burst, keyed by the path each note has now. */
class Burst {
  readonly pending = new Map<string, VaultChange>();
  /** Paths deleted and made again within the burst (their create is a modify for the index). */
  private readonly replaced = new Set<string>();

  add(change: VaultChange): void {
    const prev = this.pending.get(change.path);
    if (change.kind === 'rename') {
      const moved = this.pending.get(change.oldPath);
      this.pending.delete(change.oldPath);
      // A note made within the burst is simply new at its last name; a note renamed twice keeps its first old path.
      const origin = moved?.kind === 'rename' ? moved.oldPath : change.oldPath;
      if (moved?.kind === 'create') this.pending.set(change.path, { kind: 'create', path: change.path });
      else if (origin === change.path) this.pending.set(change.path, { kind: 'modify', path: change.path });
      else this.pending.set(change.path, { kind: 'rename', path: change.path, oldPath: origin });
    } else if (change.kind === 'delete') {
      this.pending.delete(change.path);
      // A note renamed and then deleted: the index knows it under its old path.
      if (prev?.kind === 'rename' && !this.pending.has(prev.oldPath)) this.pending.set(prev.oldPath, { kind: 'delete', path: prev.oldPath });
      this.pending.set(change.path, change);
    } else if (!prev) {
      this.pending.set(change.path, change);
    } else if (prev.kind === 'delete') {
      // Deleted and written again within the burst: the note is there, with new content.
      this.pending.set(change.path, { kind: 'modify', path: change.path });
      this.replaced.add(change.path);
    } else if (prev.kind === 'modify' && change.kind === 'create' && !this.replaced.has(change.path)) {
      // The metadata cache may report a new note before the vault does.
      this.pending.set(change.path, change);
    }
    // Otherwise the pending change stands: each kind already makes the index read the note.
  }

  take(): VaultChange[] {
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.replaced.clear();
    return batch;
  }
}

export interface FollowOptions {
  /** Quiet time after the last event before a batch is delivered. */
  debounceMs: number;
  /** Longest a busy burst (a sync, a git checkout) is held back; ten debounce periods unless given. */
  maxWaitMs?: number;
}

/**
 * Follows the vault for the index: vault events and metadata-cache `changed` (the note's metadata is parsed) become
 * VaultChange batches, one change per path per batch (a create then a delete ends as a delete; a rename carries the
 * path the index knows). Start it only from `workspace.onLayoutReady`: before that Obsidian reports every file of the
 * vault as created while it loads. The returned function unregisters every listener and clears the timer; changes
 * still pending are dropped (the next start reconciles against the listing).
 */
export function followVault(app: Pick<App, 'vault' | 'metadataCache'>, onChange: (batch: VaultChange[]) => void, options: FollowOptions): () => void {
  const { vault, metadataCache } = app;
  const maxWaitMs = options.maxWaitMs ?? options.debounceMs * 10;
  const burst = new Burst();
  let timer: number | null = null;
  let burstStart = 0;
  let lastEvent = 0;

  // One timer per burst, moved on only when it fires: an event costs no timer call (a sync brings thousands).
  const fire = (): void => {
    const due = Math.min(lastEvent + options.debounceMs, burstStart + maxWaitMs);
    const now = Date.now();
    if (now < due) {
      timer = window.setTimeout(fire, due - now);
      return;
    }
    timer = null;
    const batch = burst.take();
    if (batch.length > 0) onChange(batch);
  };

  // Delivered from the timer only, never from inside Obsidian's event dispatch.
  const add = (change: VaultChange): void => {
    burst.add(change);
    lastEvent = Date.now();
    if (timer !== null) return;
    burstStart = lastEvent;
    timer = window.setTimeout(fire, options.debounceMs);
  };

  const stopVault = onVaultChange(vault, vault.configDir, add);
  const metadataRef = metadataCache.on('changed', (file) => {
    // The mocks (and a cache reset) may report no file; only a listed note matters here.
    if (file instanceof TFile && isListedNote(file.path, vault.configDir)) add({ kind: 'modify', path: file.path });
  });

  return () => {
    stopVault();
    metadataCache.offref(metadataRef);
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    burst.take();
  };
}
