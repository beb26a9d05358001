// @vitest-environment happy-dom
// The palette commands and the file, files and editor menus through obsidian-test-mocks, over the real engine and
// curation on the in-memory vault (tests/helpers/in-process-host.ts): each is registered without a hotkey under a
// sentence-case name, acts on the right note (the vault shows it), and refuses with a notice where it cannot act.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Command, Plugin as PluginOriginal, TFile as TFileOriginal } from 'obsidian';
import { App, Editor, Menu, MenuItem, Modal, Notice, Plugin, TFile } from 'obsidian-test-mocks/obsidian';
import { setup } from 'obsidian-test-mocks/setup';
import { registerCommands, PANES } from '../../src/plugin/commands';
import { NOT_HOSTED } from '../../src/plugin/note-actions';
import { operationsApi, type EngramApi, type PaneContext } from '../../src/plugin/views/api';
import { startInProcessHost, type InProcessHost } from '../helpers/in-process-host';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const section = (name: string) => `## ${name}\n\n${`What to know about ${name.toLowerCase()}. `.repeat(4)}\n`;
const FILES: Record<string, string> = {
  'Notes/Deploy.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root.\n',
  'Notes/Release.md': '---\ntags: [release]\n---\nTag the release after the deploy.\n',
  'Notes/Index.md': 'See [[Deploy]] and [[Release]].\n',
  'Notes/Guide.md': `---\ntags: [guide]\n---\nOpening words.\n\n${section('Setup')}\n${section('Usage')}`,
  'Notes/Locked.md': '---\nlocked: true\n---\nNever curated.\n',
  'Notes/Broken.md': '---\ntags: [a\n---\nThe frontmatter does not parse.\n',
  'Notes/Plain.md': 'A note without frontmatter.\n',
  'Notes/Due.md': '---\nreview_after: 2026-03-01\n---\nA working-memory note past its review date.\n',
};

class TestPlugin extends Plugin {
  /** What EngramPlugin#statusText says (the status bar's tooltip). */
  statusText(): string {
    return 'Engram hosts this vault here: 7 notes indexed.';
  }
  /** EngramPlugin#configAccess: the engine's settings (a week until review, not the default four). */
  configAccess(): { get(key: string): unknown } {
    return { get: (key) => (key === 'review_after_days' ? 7 : undefined) };
  }
}

let host: InProcessHost;
let app: App;
let plugin: TestPlugin;
let hosted: EngramApi | undefined;
let notices: string[];
let modals: Modal[];
let opened: string[];

/** Every Notice's text, as the user read it (the mocks keep none, so their constructor hook records them). */
function watchNotices(): void {
  notices = [];
  vi.spyOn(Notice.prototype, 'constructor__').mockImplementation((message: DocumentFragment | string) => {
    notices.push(typeof message === 'string' ? message : (message.textContent ?? ''));
  });
}

/** Modals stay open until the test clicks (the mocks' `open` closes them at once). */
function watchModals(): void {
  modals = [];
  vi.spyOn(Modal.prototype, 'open').mockImplementation(function (this: Modal) {
    modals.push(this);
    this.onOpen();
  });
}

async function files(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await host.vault.list()) out[f.path] = (await host.vault.read(f.path)).text;
  return out;
}

function command(id: string): Command {
  const c = plugin.commands__.get(id);
  if (!c) throw new Error(`no command ${id}`);
  return c;
}

async function open(path: string): Promise<TFileOriginal> {
  const file = app.vault.getAbstractFileByPath(path) as TFile;
  const leaf = app.workspace.getLeaf(true);
  await leaf.openFile(file);
  app.workspace.setActiveLeaf(leaf);
  return file.asOriginalType__() as TFileOriginal;
}

/** An editor holding `text`, with `selected` characters of its first line selected. */
function editorWith(text: string, selected: number): Editor {
  // The mocks' Editor is abstract only in its types (Obsidian's is); its methods all work.
  const editor = new (Editor as unknown as new () => Editor)();
  editor.setValue(text);
  if (selected > 0) editor.setSelection({ line: 0, ch: 0 }, { line: 0, ch: selected });
  return editor;
}

/** Runs a command on the active note, as the palette does after checking it applies. */
function run(id: string): void {
  const c = command(id);
  if (c.checkCallback) {
    expect(c.checkCallback(true)).toBe(true);
    c.checkCallback(false);
  } else c.callback!();
}

async function modal<T extends Modal>(n = 1): Promise<T> {
  await vi.waitFor(() => expect(modals.length).toBeGreaterThanOrEqual(n));
  return modals[n - 1] as T;
}

function button(m: Modal, text: string): HTMLButtonElement {
  const b = [...m.contentEl.querySelectorAll('button')].find((x) => x.textContent === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

async function notice(pattern: RegExp): Promise<string> {
  await vi.waitFor(() => expect(notices.some((n) => pattern.test(n))).toBe(true));
  return notices.find((n) => pattern.test(n))!;
}

beforeEach(async () => {
  setup();
  host = await startInProcessHost({ ...FILES }, { clock: { now: () => NOW } });
  hosted = operationsApi(host.engine, host.operations);
  app = App.createConfigured__();
  // The app's vault gives the commands their TFiles; the texts are the engine's (in the plugin, both are Obsidian's vault).
  await app.vault.createFolder('Notes');
  for (const path of Object.keys(FILES)) await app.vault.create(path, '');
  plugin = new TestPlugin(app, { id: 'engram', name: 'Engram', version: '0.0.0', minAppVersion: '1.5.0', author: '', description: '' });
  const ctx: PaneContext = { api: () => hosted, onChange: () => () => {} };
  opened = [];
  registerCommands(plugin.asOriginalType2__() as PluginOriginal, ctx, { open: (t) => Promise.resolve(void opened.push(t)) });
  watchNotices();
  watchModals();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('commands', () => {
  it('are registered without hotkeys, under sentence-case names', () => {
    const all = [...plugin.commands__.values()];
    expect(all.map((c) => c.id).sort()).toEqual(['file-selection', 'merge-notes', 'open-activity', 'open-dashboard', 'open-restructure', 'open-review', 'open-search', 'recall-related', 'reindex', 'split-note', 'status', 'toggle-lock', 'toggle-working-memory']);
    for (const c of all) {
      expect(c.hotkeys ?? []).toEqual([]);
      // One capital, at the start; no "Engram" (Obsidian shows the plugin's name before every command).
      expect(c.name).toMatch(/^[A-Z][^A-Z]*$/);
    }
  });

  it('show the note commands only while a Markdown note is open', async () => {
    for (const id of ['split-note', 'recall-related', 'toggle-working-memory', 'toggle-lock']) expect(command(id).checkCallback!(true)).toBe(false);
    await open('Notes/Plain.md');
    for (const id of ['split-note', 'recall-related', 'toggle-working-memory', 'toggle-lock']) expect(command(id).checkCallback!(true)).toBe(true);
  });

  it('open the review, restructure, search and related panes', async () => {
    run('open-review');
    run('open-restructure');
    run('open-search');
    await open('Notes/Plain.md');
    run('recall-related');
    expect(opened).toEqual([PANES.review, PANES.restructure, PANES.search, PANES.related]);
  });

  it('toggle working memory on the current note: sets review_after, then clears it', async () => {
    await open('Notes/Plain.md');
    run('toggle-working-memory');
    await notice(/Notes\/Plain\.md is working memory, due for review on 2026-03-17/);
    expect((await files())['Notes/Plain.md']).toBe('---\nreview_after: 2026-03-17\n---\nA note without frontmatter.\n');
    expect(host.engine.meta('Notes/Plain.md')?.reviewAfter).toBe('2026-03-17');
    run('toggle-working-memory');
    await notice(/no longer working memory/);
    expect((await files())['Notes/Plain.md']).toBe('---\n---\nA note without frontmatter.\n');
  });

  it('lock and unlock the current note; a locked note refuses working memory and a split', async () => {
    await open('Notes/Deploy.md');
    run('toggle-lock');
    await notice(/Locked Notes\/Deploy\.md/);
    const locked = (await files())['Notes/Deploy.md'];
    expect(locked).toBe('---\ntags: [deploy]\nlocked: true\n---\nThe deploy script must run from the repository root.\n');
    run('toggle-working-memory');
    await notice(/Notes\/Deploy\.md is locked: Engram does not change it/);
    run('split-note');
    await notice(/Notes\/Deploy\.md is locked: Engram does not split it/);
    expect((await files())['Notes/Deploy.md']).toBe(locked);
    expect(modals).toEqual([]);
    run('toggle-lock');
    await notice(/Unlocked Notes\/Deploy\.md/);
    expect((await files())['Notes/Deploy.md']).toBe(FILES['Notes/Deploy.md']);
  });

  it('refuse a note whose frontmatter does not parse, and change nothing', async () => {
    await open('Notes/Broken.md');
    run('toggle-lock');
    expect(await notice(/Engram cannot change Notes\/Broken\.md/)).toMatch(/fix the frontmatter by hand/);
    run('split-note');
    await notice(/Engram cannot split this: Notes\/Broken\.md has invalid frontmatter/);
    expect(await files()).toEqual(FILES);
  });

  it('split the current note at its headings after a preview, only on Apply', async () => {
    await open('Notes/Guide.md');
    run('split-note');
    const preview = await modal();
    const texts = [...preview.contentEl.querySelectorAll('h4')].map((h) => h.textContent);
    expect(texts).toEqual(['Notes/Guide.md (rewritten)', 'Notes/Guide - Setup.md (new note)', 'Notes/Guide - Usage.md (new note)']);
    expect(preview.contentEl.querySelectorAll('pre')[2].textContent).toMatch(/What to know about usage\./);
    expect(await files()).toEqual(FILES);
    button(preview, 'Apply').click();
    await notice(/Split Notes\/Guide\.md into 2 notes/);
    const after = await files();
    expect(after['Notes/Guide - Setup.md']).toMatch(/What to know about setup\./);
    expect(after['Notes/Guide.md']).toMatch(/## Parts\n\n- \[\[Guide - Setup\]\]\n- \[\[Guide - Usage\]\]/);
  });

  it('refuse to split a note without headings', async () => {
    await open('Notes/Plain.md');
    run('split-note');
    await notice(/Engram cannot split this: Notes\/Plain\.md has no headings/);
    expect(modals).toEqual([]);
  });

  it('merge notes picked in the picker, after a preview; Cancel writes nothing', async () => {
    await open('Notes/Deploy.md');
    run('merge-notes');
    const picker = await modal();
    const rows = [...picker.contentEl.querySelectorAll('label')];
    const box = (path: string) => rows.find((r) => r.textContent === path)!.querySelector('input')!;
    expect(box('Notes/Deploy.md').checked).toBe(true);
    expect(button(picker, 'Preview merge').disabled).toBe(true);
    box('Notes/Release.md').click();
    expect(button(picker, 'Preview merge').disabled).toBe(false);
    button(picker, 'Preview merge').click();
    const preview = await modal(2);
    expect(preview.contentEl.querySelector('pre')!.textContent).toMatch(/repository root\.\n\n## Release\n\nTag the release after the deploy\./);
    expect(preview.contentEl.textContent).toMatch(/Moved to the trash: Notes\/Release\.md/);
    button(preview, 'Cancel').click();
    expect(await files()).toEqual(FILES);

    run('merge-notes');
    const again = await modal(3);
    [...again.contentEl.querySelectorAll('label')].find((r) => r.textContent === 'Notes/Release.md')!.querySelector('input')!.click();
    button(again, 'Preview merge').click();
    button(await modal(4), 'Apply').click();
    await notice(/Merged 2 notes into Notes\/Deploy\.md/);
    const after = await files();
    expect(after['Notes/Release.md']).toBeUndefined();
    expect(after['Notes/Deploy.md']).toMatch(/aliases: \[Release\]|aliases:\n  - Release/);
    expect(after['Notes/Index.md']).toBe('See [[Deploy]] and [[Deploy|Release]].\n');
  });

  it('file a selection as memory with the type chosen in the modal; no selection is refused', async () => {
    const file = await open('Notes/Plain.md');
    const editor = editorWith('Always run the migrations before the deploy.\nSecond line.', 0);
    const check = command('file-selection').editorCheckCallback!;
    const info = { file } as never;
    expect(check(true, editor.asOriginalType__(), info)).toBe(true);
    check(false, editor.asOriginalType__(), info);
    await notice(/Select the text to file as memory first/);
    expect(modals).toEqual([]);

    editor.setSelection({ line: 0, ch: 0 }, { line: 0, ch: 44 });
    check(false, editor.asOriginalType__(), info);
    const m = await modal();
    expect(m.contentEl.querySelector('blockquote')!.textContent).toBe('Always run the migrations before the deploy.');
    const select = m.contentEl.querySelector('select')!;
    select.value = 'correction';
    select.dispatchEvent(new Event('change'));
    button(m, 'File as memory').click();
    const told = await notice(/Filed as memory: /);
    const path = /Filed as memory: (.+)\.$/.exec(told)![1];
    expect((await files())[path]).toMatch(/^---\n[\s\S]*type: correction[\s\S]*---\n[\s\S]*Always run the migrations before the deploy\./);
  });

  it('reindex the vault with a notice, and show the status', async () => {
    run('reindex');
    await notice(/Reindexed the vault: 8 notes/);
    expect(notices[0]).toBe('Reindexing the vault…');
    run('status');
    const m = await modal();
    const rows = [...m.contentEl.querySelectorAll('tr')].map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]);
    expect(rows).toContainEqual(['Host', 'Engram hosts this vault here: 7 notes indexed.']);
    expect(rows).toContainEqual(['Notes', '8']);
    expect(rows).toContainEqual(['Working memory due today', '1']);
  });

  it('say the vault is not hosted yet, and change nothing', async () => {
    hosted = undefined;
    await open('Notes/Deploy.md');
    for (const id of ['toggle-lock', 'toggle-working-memory', 'split-note', 'reindex', 'merge-notes']) run(id);
    await vi.waitFor(() => expect(notices).toEqual(Array(5).fill(NOT_HOSTED)));
    expect(modals).toEqual([]);
    expect(await files()).toEqual(FILES);
  });
});

describe('menus', () => {
  it('the files menu merges the selected notes after a preview', async () => {
    const menu = Menu.create2__();
    const chosen = ['Notes/Deploy.md', 'Notes/Release.md', 'Notes'].map((p) => app.vault.getAbstractFileByPath(p));
    app.workspace.trigger('files-menu', menu, chosen, 'file-explorer');
    expect(menu.menuItems__.map((i: MenuItem) => i.title__)).toEqual(['Merge 2 notes']);
    menu.menuItems__[0].onClick__!(new MouseEvent('click'));
    button(await modal(), 'Apply').click();
    await notice(/Merged 2 notes into Notes\/Deploy\.md/);
    expect((await files())['Notes/Release.md']).toBeUndefined();
  });

  it('the file menu offers merge, split and lock; a locked note offers unlock and no split', async () => {
    const items = (path: string): MenuItem[] => {
      const menu = Menu.create2__();
      app.workspace.trigger('file-menu', menu, app.vault.getAbstractFileByPath(path), 'file-explorer');
      return menu.menuItems__;
    };
    expect(items('Notes/Guide.md').map((i: MenuItem) => i.title__)).toEqual(['Merge with other notes…', 'Split at headings', 'Lock note']);
    expect(items('Notes/Locked.md').map((i: MenuItem) => i.title__)).toEqual(['Merge with other notes…', 'Unlock note']);
    expect(items('Notes').map((i: MenuItem) => i.title__)).toEqual([]);
    items('Notes/Locked.md')[1].onClick__!(new MouseEvent('click'));
    await notice(/Unlocked Notes\/Locked\.md/);
    expect((await files())['Notes/Locked.md']).toBe('---\n---\nNever curated.\n');
  });

  it('the editor menu adds filing the selection as memory', async () => {
    const file = await open('Notes/Guide.md');
    const editor = editorWith('Pick me.', 8);
    const menu = Menu.create2__();
    app.workspace.trigger('editor-menu', menu, editor, { file });
    expect(menu.menuItems__.map((i: MenuItem) => i.title__)).toEqual(['Merge with other notes…', 'Split at headings', 'Lock note', 'File selection as memory']);
    hosted = undefined;
    const none = Menu.create2__();
    app.workspace.trigger('editor-menu', none, editor, { file });
    expect(none.menuItems__).toEqual([]);
  });
});
