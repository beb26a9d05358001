// The Obsidian host's VaultPort over obsidian-test-mocks backed by a real folder: the shared conformance suite (with
// the user's "Automatically update internal links" on, so a rename through Obsidian's link update would show, and
// "Deleted files" set to Obsidian's .trash), and
// what only this port does: edits through Vault.process, trash through the user's setting, curation's rewrite alone.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyProposal, type CurateContext } from '../../src/core/curate/apply';
import { loadCatalog } from '../../src/core/curate/catalog';
import { archiveProposals } from '../../src/core/curate/maintain';
import { MemoryProposalStore } from '../../src/core/curate/proposals';
import { curateSettings } from '../../src/core/curate/settings';
import { isEngramError } from '../../src/core/errors';
import { editFrontmatter } from '../../src/core/note/frontmatter-edit';
import type { VaultChange } from '../../src/core/ports';
import { ObsidianVault } from '../../src/plugin/obsidian/vault-port';
import { openFolderVault, type FolderVaultOptions } from '../helpers/obsidian-folder-vault';
import { makeTempDir, removeDir } from '../helpers/temp';
import { vaultPortConformance } from '../core/ports-conformance';

vaultPortConformance('ObsidianVault', async (files) => {
  const root = makeTempDir('engram-obsidian-');
  const v = openFolderVault(root, files, { autoUpdateLinks: true });
  return {
    vault: new ObsidianVault(v.app),
    externalWrite: (p, text) => v.userWrite(p, text),
    allFiles: () => Promise.resolve(v.allFiles()),
    cleanup: () => Promise.resolve(removeDir(root)),
  };
});

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeDir(r);
});

function open(files: Record<string, string>, options: FolderVaultOptions = {}) {
  const root = makeTempDir('engram-obsidian-');
  roots.push(root);
  const v = openFolderVault(root, files, options);
  return { ...v, port: new ObsidianVault(v.app) };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('ObsidianVault specifics', () => {
  it('edits through Vault.process: a user edit between read and write is kept, and the write refused', async () => {
    const v = open({ 'Note.md': 'engine read this\n' });
    const process = vi.spyOn(v.vault, 'process');
    const modify = vi.spyOn(v.vault, 'modify');
    const { text } = await v.port.read('Note.md');
    await v.userWrite('Note.md', 'the user typed this\n');
    const e = await rejection(v.port.writeIfUnchanged('Note.md', text, 'engine text\n'));
    expect(isEngramError(e, 'conflict')).toBe(true);
    expect(v.allFiles()['Note.md']).toBe('the user typed this\n');
    expect(process).toHaveBeenCalledTimes(1);

    await v.port.writeIfUnchanged('Note.md', 'the user typed this\n', 'both agree\n');
    expect(v.allFiles()['Note.md']).toBe('both agree\n');
    expect(process).toHaveBeenCalledTimes(2);
    expect(modify).not.toHaveBeenCalled();
  });

  it('compares inside Vault.process, so an edit landing while the write is under way is kept', async () => {
    const v = open({ 'Note.md': 'before\n' });
    const realRead = v.vault.adapter.read.bind(v.vault.adapter);
    // The user's edit lands on disk after the port looked the note up and before Vault.process reads it.
    vi.spyOn(v.vault.adapter, 'read').mockImplementationOnce(async (p: string) => {
      await v.userWrite('Note.md', 'user, just now\n');
      return realRead(p);
    });
    const e = await rejection(v.port.writeIfUnchanged('Note.md', 'before\n', 'engine\n'));
    expect(isEngramError(e, 'conflict')).toBe(true);
    expect(v.allFiles()['Note.md']).toBe('user, just now\n');
  });

  it('reports a note the user made first as a conflict, and keeps it', async () => {
    const v = open({});
    const realCreate = v.vault.create.bind(v.vault);
    // The user's note appears after the port checked the path and before Vault.create runs.
    vi.spyOn(v.vault, 'create').mockImplementationOnce(async (p: string, data: string) => {
      await v.userWrite(p, 'mine');
      return realCreate(p, data);
    });
    const e = await rejection(v.port.create('N.md', 'engine'));
    expect(isEngramError(e, 'conflict')).toBe(true);
    expect(v.allFiles()).toEqual({ 'N.md': 'mine' });
  });

  it('keeps the user\'s YAML formatting through an edit made by the note layer\'s splice editor', async () => {
    const note = '---\r\n# my own comment\r\ntags: [ a,  b ]   # spaced as I like\r\nsummary: >-\r\n  folded\r\n  text\r\ntype: "insight"\r\n---\r\nBody **kept**.\r\n';
    const v = open({ 'Styled.md': note });
    const { text } = await v.port.read('Styled.md');
    const edited = editFrontmatter(text, { set: { type: 'decision' } }).text;
    await v.port.writeIfUnchanged('Styled.md', text, edited);
    expect(v.allFiles()['Styled.md']).toBe(note.replace('type: "insight"', 'type: "decision"'));
  });

  it('trashes through FileManager.trashFile, so the user\'s "Deleted files" setting decides', async () => {
    const local = open({ 'A.md': 'a' }, { trash: 'local' });
    const trashFile = vi.spyOn(local.fileManager, 'trashFile');
    await local.port.trash('A.md');
    expect(trashFile).toHaveBeenCalledTimes(1);
    expect(local.allFiles()).toEqual({ '.trash/A.md': 'a' });

    const gone = open({ 'A.md': 'a' }, { trash: 'none' });
    await gone.port.trash('A.md');
    expect(gone.allFiles()).toEqual({});
    expect(await gone.port.list()).toEqual([]);
  });

  it('creates missing folders through Vault.createFolder, and notes through Vault.create', async () => {
    const v = open({});
    const createFolder = vi.spyOn(v.vault, 'createFolder');
    const create = vi.spyOn(v.vault, 'create');
    await Promise.all([v.port.create('New/Deep/A.md', 'a'), v.port.create('New/Deep/B.md', 'b')]);
    expect(createFolder.mock.calls.map(([p]) => p)).toEqual(['New', 'New/Deep']);
    expect(create).toHaveBeenCalledTimes(2);
    expect(v.vault.getFolderByPath('New/Deep')).not.toBeNull();
    expect((await v.port.list()).map((f) => f.path)).toEqual(['New/Deep/A.md', 'New/Deep/B.md']);
  });

  it('lists the tracked notes outside a renamed config folder, with Obsidian\'s stat', async () => {
    const v = open({ 'cfg/plugins.md': 'x', 'n.md': 'héllo' });
    expect(await new ObsidianVault(v.app, { configDir: 'cfg' }).list()).toEqual([{ path: 'n.md', mtime: v.vault.getFileByPath('n.md')?.stat.mtime, size: 6 }]);
  });

  it('runs over a folder whose notes reach Obsidian\'s metadata cache, on open and after each write', async () => {
    const v = open({ 'n.md': '---\ntype: insight\n---\nSee [[Other]].\n' });
    const cache = () => v.metadataCache.getFileCache(v.vault.getFileByPath('n.md')!);
    expect(cache()?.frontmatter).toEqual({ type: 'insight' });
    expect(cache()?.links?.map((l) => l.link)).toEqual(['Other']);
    await v.port.writeIfUnchanged('n.md', '---\ntype: insight\n---\nSee [[Other]].\n', '---\ntype: decision\n---\n');
    expect(cache()?.frontmatter).toEqual({ type: 'decision' });
  });

  it('watches the user\'s own changes too, as Obsidian reports them', async () => {
    const v = open({ 'a.md': 'a' });
    const seen: VaultChange[] = [];
    const stop = v.port.watch((c) => seen.push(c));
    await v.userWrite('a.md', 'changed');
    await v.userWrite('b.md', 'new');
    await v.userWrite('.obsidian/app.md', 'config');
    await v.vault.rename(v.vault.getFileByPath('b.md')!, 'b.txt');
    stop();
    await v.userWrite('a.md', 'after');
    expect(seen).toEqual([
      { kind: 'modify', path: 'a.md' },
      { kind: 'create', path: 'b.md' },
      { kind: 'delete', path: 'b.md' },
    ]);
  });
});

describe('who rewrites links when curation moves a note', () => {
  const files: Record<string, string> = {
    'Engram/Inbox/Expired.md': '---\ntype: insight\nforget_after: 2026-03-01\nengram_id: e1\n---\nNo longer true.\n',
    'Notes/Links.md': 'See [[Expired]] and [[Engram/Inbox/Expired#Why|why]].\n',
  };
  const NOW = Date.parse('2026-03-10T12:00:00Z');
  const settings = curateSettings({ device: 'laptop', actor: 'test' });

  it('curation\'s journaled rewrite is the only one, even with "Automatically update internal links" on', async () => {
    const v = open(files, { autoUpdateLinks: true });
    const renameFile = vi.spyOn(v.fileManager, 'renameFile');
    const ctx: CurateContext = { vault: v.port, store: new MemoryProposalStore(), settings, clock: { now: () => NOW } };
    const [p] = archiveProposals(await loadCatalog(v.port), settings, NOW);
    await ctx.store.save(p);
    const r = await applyProposal(ctx, p.id);
    expect(r.moved).toEqual([['Engram/Inbox/Expired.md', 'Engram/Archive/Expired.md']]);
    expect(r.relinked).toEqual(['Notes/Links.md']);
    // Exactly curation's rewrite: the link by name still resolves, the link by path points at the archive.
    expect(v.allFiles()['Notes/Links.md']).toBe('See [[Expired]] and [[Engram/Archive/Expired#Why|why]].\n');
    expect(renameFile).not.toHaveBeenCalled();
  });

  it('the model of Obsidian\'s link update is live: FileManager.renameFile would have rewritten the link first', async () => {
    const v = open(files, { autoUpdateLinks: true });
    await v.fileManager.renameFile(v.vault.getFileByPath('Engram/Inbox/Expired.md')!, 'Engram/Archive/Expired.md');
    expect(v.allFiles()['Notes/Links.md']).toBe('See [[Expired]] and [[Engram/Archive/Expired#Why|why]].\n');
  });
});
