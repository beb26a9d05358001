// Follows the vault with chokidar 4 and hands changes to the engine. No awaitWriteFinish: Obsidian and our own
// writer save by rename, which arrives as one complete 'change'; a short per-path debounce absorbs partial writes.
import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import type { VaultChange } from '../../src/core/ports.js';
import { VAULT_IGNORED_DIRS } from '../hosting/paths.js';


export function startVaultWatcher(root: string, onChange: (c: VaultChange) => void, onError: (e: Error) => void = () => {}, debounceMs = 50): { close(): Promise<void>; ready: Promise<void> } {
  const timers = new Map<string, { kind: VaultChange['kind']; timer: NodeJS.Timeout }>();
  const rel = (p: string) => path.relative(root, p).split(path.sep).join('/');
  const w: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    atomic: true,
    ignored: (p, stats) => {
      const r = rel(p);
      if (VAULT_IGNORED_DIRS.some((d) => r === d || r.startsWith(`${d}/`) || r.includes(`/${d}/`))) return true;
      return !!stats?.isFile() && !p.toLowerCase().endsWith('.md');
    },
  });
  const emit = (kind: 'create' | 'modify' | 'delete', p: string) => {
    if (!p.toLowerCase().endsWith('.md')) return;
    const key = rel(p);
    const prev = timers.get(key);
    if (prev) clearTimeout(prev.timer);
    const timer = setTimeout(() => {
      timers.delete(key);
      onChange(kind === 'delete' ? { kind: 'delete', path: key } : { kind, path: key });
    }, debounceMs);
    timers.set(key, { kind, timer });
  };
  w.on('add', (p) => emit('create', p));
  w.on('change', (p) => emit('modify', p));
  w.on('unlink', (p) => emit('delete', p));
  // An unhandled 'error' would kill the host (e.g. ENOSPC: out of inotify watches); log it and keep serving.
  w.on('error', (e) => onError(e as Error));
  const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      for (const t of timers.values()) clearTimeout(t.timer);
      await w.close();
    },
  };
}
