// The index follows the vault: Obsidian's vault and metadata-cache events (from obsidian-test-mocks) become debounced
// VaultChange batches, one change per note, and disposing leaves no listener and no timer behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileManager, FileSystemAdapter, MetadataCache, Vault, type TFile } from 'obsidian-test-mocks/obsidian';
import type { VaultChange } from '../../src/core/ports';
import { followVault } from '../../src/plugin/obsidian/vault-events';

function mockApp() {
  const vault = Vault.create2__(FileSystemAdapter.create__('/vault').asOriginalType__());
  const app = { vault } as unknown as Parameters<typeof FileManager.create__>[0];
  const metadataCache = MetadataCache.create2__(app, vault);
  return { vault, metadataCache, app: { vault: vault.asOriginalType2__(), metadataCache: metadataCache.asOriginalType2__() } };
}

/** How many listeners an Events object holds (the mocks keep them in `_`). */
function listeners(events: Vault | MetadataCache): number {
  const registry = (events as unknown as { _: Record<string, unknown[]> })._;
  return Object.values(registry).reduce((n, l) => n + l.length, 0);
}

const file = (vault: Vault, p: string): TFile => vault.getFileByPath(p)!;

beforeEach(() => {
  // Obsidian's timers are window's (the plugin lint asks for window.setTimeout); Node has no window.
  vi.stubGlobal('window', globalThis);
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('followVault', () => {
  it('turns vault events into one batch after the vault has been quiet for the debounce time', async () => {
    const { vault, app } = mockApp();
    await vault.create('Old.md', 'old');
    const batches: VaultChange[][] = [];
    const stop = followVault(app, (b) => batches.push(b), { debounceMs: 100 });

    await vault.create('A.md', 'a');
    await vault.modify(file(vault, 'Old.md'), 'edited');
    vi.advanceTimersByTime(80);
    await vault.rename(file(vault, 'Old.md'), 'Moved/Old.md');
    vi.advanceTimersByTime(99);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([
      [
        { kind: 'create', path: 'A.md' },
        { kind: 'rename', path: 'Moved/Old.md', oldPath: 'Old.md' },
      ],
    ]);

    await vault.delete(file(vault, 'A.md'));
    vi.advanceTimersByTime(100);
    expect(batches[1]).toEqual([{ kind: 'delete', path: 'A.md' }]);
    stop();
  });

  it('coalesces a burst per note', async () => {
    const { vault, app } = mockApp();
    await vault.create('Kept.md', 'k');
    await vault.create('Twice.md', 't');
    await vault.create('Gone.md', 'g');
    await vault.create('Replaced.md', 'r');
    const batches: VaultChange[][] = [];
    const stop = followVault(app, (b) => batches.push(b), { debounceMs: 100 });

    // Created and deleted within the window: a delete (harmless for a note the index never had).
    await vault.create('Brief.md', 'b');
    await vault.delete(file(vault, 'Brief.md'));
    // Edited many times (each edit also re-parsed by the metadata cache): one modify.
    for (let i = 0; i < 5; i++) await vault.modify(file(vault, 'Kept.md'), `k${i}`);
    // Renamed twice: one rename from the path the index knows.
    await vault.rename(file(vault, 'Twice.md'), 'Twice 2.md');
    await vault.rename(file(vault, 'Twice 2.md'), 'Done/Twice.md');
    // Created, then renamed: simply new at its last name.
    await vault.create('Draft.md', 'd');
    await vault.rename(file(vault, 'Draft.md'), 'Final.md');
    // Renamed, then deleted: the index drops it under the name it knows.
    await vault.rename(file(vault, 'Gone.md'), 'Gone 2.md');
    await vault.delete(file(vault, 'Gone 2.md'));
    // Deleted and written again (a sync tool replacing it): the note is there with new content.
    await vault.delete(file(vault, 'Replaced.md'));
    await vault.create('Replaced.md', 'new');
    vi.advanceTimersByTime(100);

    expect(batches).toHaveLength(1);
    const byPath = Object.fromEntries(batches[0].map((c) => [c.path, c]));
    expect(byPath).toEqual({
      'Brief.md': { kind: 'delete', path: 'Brief.md' },
      'Kept.md': { kind: 'modify', path: 'Kept.md' },
      'Done/Twice.md': { kind: 'rename', path: 'Done/Twice.md', oldPath: 'Twice.md' },
      'Final.md': { kind: 'create', path: 'Final.md' },
      'Gone.md': { kind: 'delete', path: 'Gone.md' },
      'Gone 2.md': { kind: 'delete', path: 'Gone 2.md' },
      'Replaced.md': { kind: 'modify', path: 'Replaced.md' },
    });
    stop();
  });

  it('reports a note whose metadata the cache re-parsed, and ignores what the index does not list', async () => {
    const { vault, metadataCache, app } = mockApp();
    await vault.create('Note.md', '---\ntags: [a]\n---\n');
    const batches: VaultChange[][] = [];
    const stop = followVault(app, (b) => batches.push(b), { debounceMs: 50 });
    metadataCache.trigger('changed', file(vault, 'Note.md'), '', {});
    await vault.create('image.png', 'png');
    await vault.create('.obsidian/workspace.md', 'config');
    await vault.createFolder('Folder.md');
    await vault.rename(file(vault, 'image.png'), 'image.md');
    vi.advanceTimersByTime(50);
    expect(batches).toEqual([
      [
        { kind: 'modify', path: 'Note.md' },
        { kind: 'create', path: 'image.md' },
      ],
    ]);
    stop();
  });

  it('delivers a long busy burst at least every maxWaitMs', async () => {
    const { vault, app } = mockApp();
    const batches: VaultChange[][] = [];
    const stop = followVault(app, (b) => batches.push(b), { debounceMs: 100, maxWaitMs: 500 });
    for (let i = 0; i < 20; i++) {
      await vault.create(`n${i}.md`, 'x');
      vi.advanceTimersByTime(60);
    }
    // 1.2 s of events 60 ms apart never leave 100 ms of quiet, yet batches arrive.
    expect(batches.length).toBeGreaterThanOrEqual(2);
    vi.advanceTimersByTime(100);
    // A note at a batch's edge may come twice (created, then re-parsed): the index just reads it again.
    expect(new Set(batches.flat().map((c) => c.path))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `n${i}.md`)));
    stop();
  });

  it('disposes every listener and its timer', async () => {
    const { vault, metadataCache, app } = mockApp();
    const before = { vault: listeners(vault), cache: listeners(metadataCache) };
    const seen = vi.fn();
    const stop = followVault(app, seen, { debounceMs: 100 });
    expect(listeners(vault)).toBeGreaterThan(before.vault);
    expect(listeners(metadataCache)).toBeGreaterThan(before.cache);
    await vault.create('Pending.md', 'p');
    expect(vi.getTimerCount()).toBe(1);

    stop();
    expect(vi.getTimerCount()).toBe(0);
    expect({ vault: listeners(vault), cache: listeners(metadataCache) }).toEqual(before);
    await vault.create('After.md', 'a');
    vi.advanceTimersByTime(1000);
    expect(seen).not.toHaveBeenCalled();
  });
});
