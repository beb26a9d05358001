// @vitest-environment happy-dom
// The settings tab over the real config access (config.json in a temp ENGRAM_HOME): the sections a user looks for,
// a folder typed in reaches config.json, a bad value is refused with a notice and leaves the file alone, and the model
// download asks first (nothing runs until the user confirms).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ButtonComponent, Notice, TextComponent } from 'obsidian-test-mocks/obsidian';
import { EngramSettingTab, DEFAULT_SETTINGS, type EngineConfigAccess, type SettingsHost } from '../../src/plugin/settings';
import { nodeConfigAccess } from '../../src/plugin/node/config-access';
import { pluginApp } from '../helpers/plugin-app';
import { makeTempDir, removeDir } from '../helpers/temp';

let root: string;
beforeEach(() => {
  root = makeTempDir('engram-settings-');
});
afterEach(() => {
  vi.restoreAllMocks();
  removeDir(root);
});

/** Every text field and button the tab draws, by the name of its setting row (and the button's label). */
function controls() {
  const texts = new Map<string, (v: string) => unknown>();
  const buttons = new Map<string, () => unknown>();
  // The mocks' Setting row: [control [input or button]] [info [name, description]] (no class names).
  const rowName = (el: HTMLElement) => el.parentElement?.parentElement?.children[1]?.firstElementChild?.textContent ?? '';
  vi.spyOn(TextComponent.prototype, 'onChange').mockImplementation(function (this: TextComponent, cb: (v: string) => unknown) {
    texts.set(rowName(this.inputEl), cb);
    return this;
  });
  vi.spyOn(ButtonComponent.prototype, 'onClick').mockImplementation(function (this: ButtonComponent, cb: (evt: MouseEvent) => unknown) {
    buttons.set(`${rowName(this.buttonEl) || 'modal'}: ${this.buttonEl.textContent}`, () => cb(new MouseEvent('click')));
    return this;
  });
  return { texts, buttons };
}

describe('settings tab', () => {
  it('shows folders, extraction, embeddings, integrations and the state folder, and saves through config.json', async () => {
    const home = path.join(root, 'engram');
    fs.mkdirSync(home);
    const { app } = pluginApp(root, {});
    const real = nodeConfigAccess({ ...process.env, ENGRAM_HOME: home }, { nodePath: '', cliPath: path.join(root, 'nowhere.mjs'), engramHome: home });
    const runCli = vi.fn(async () => ({ code: 0, output: '' }));
    const access: EngineConfigAccess = { ...real, home: real.home, runCli };
    const host: SettingsHost = { settings: { ...DEFAULT_SETTINGS }, saveSettings: async () => {}, configAccess: () => access, statusText: () => 'Engram hosts this vault here.', problem: () => undefined, vaultPath: () => root };
    // The mocks keep no notice text: their constructor hook records it.
    const notices = vi.spyOn(Notice.prototype, 'constructor__');
    const { texts, buttons } = controls();
    const tab = new EngramSettingTab(app, {} as never, host, 50);
    tab.display();
    const text = tab.containerEl.textContent ?? '';
    for (const heading of ['Vault folders', 'Extraction', 'Embeddings', 'Claude Code and Codex', 'State folder', 'Node path']) expect(text).toContain(heading);
    expect(text).toContain(home);
    expect(text).toContain('https://huggingface.co/');

    texts.get('Inbox')!('Memory/Inbox');
    const config = path.join(home, 'config.json');
    await vi.waitFor(() => expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toMatchObject({ folders: { inbox: 'Memory/Inbox' } }));
    const before = fs.readFileSync(config, 'utf8');
    texts.get('Daily token budget')!('lots');
    await vi.waitFor(() => expect(notices.mock.calls.flat().join(' ')).toMatch(/budget\.tokens_per_day must be/));
    expect(fs.readFileSync(config, 'utf8')).toBe(before);

    // The download asks first: nothing runs until the modal's Download is clicked.
    await buttons.get('No model yet: Download…')!();
    expect(runCli).not.toHaveBeenCalled();
    await buttons.get('modal: Download')!();
    await vi.waitFor(() => expect(runCli).toHaveBeenCalledWith(['model', 'pull']));
  });

  it('a text field saves once typing pauses, not once per keystroke, and what is pending is saved when the tab closes', async () => {
    const home = path.join(root, 'engram');
    fs.mkdirSync(home);
    const { app } = pluginApp(root, {});
    const real = nodeConfigAccess({ ...process.env, ENGRAM_HOME: home }, { nodePath: '', cliPath: path.join(root, 'nowhere.mjs'), engramHome: home });
    const set = vi.fn((key: string, value: unknown) => real.set(key, value));
    const access: EngineConfigAccess = { ...real, home: real.home, set };
    const saveSettings = vi.fn(async () => {});
    const host: SettingsHost = { settings: { ...DEFAULT_SETTINGS }, saveSettings, configAccess: () => access, statusText: () => 'Engram hosts this vault here.', problem: () => undefined, vaultPath: () => root };
    const { texts } = controls();
    const tab = new EngramSettingTab(app, {} as never, host, 100);
    tab.display();
    // Typing a model id, one keystroke at a time: one save, of the whole id (each save would rebuild the vectors).
    const id = 'Xenova/all-MiniLM-L6-v2';
    for (let i = 1; i <= id.length; i++) texts.get('Embedding model')!(id.slice(0, i));
    expect(set).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(set).toHaveBeenCalledTimes(1));
    expect(set).toHaveBeenCalledWith('embedding.model_id', id);
    await vi.waitFor(() => expect(JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8'))).toMatchObject({ embedding: { model_id: id } }));

    // Closing the tab right after typing saves at once what was typed.
    texts.get('Node path')!('/opt/node/bin/node');
    texts.get('Inbox')!('Memory/Inbox');
    tab.hide();
    expect(host.settings.nodePath).toBe('/opt/node/bin/node');
    expect(saveSettings).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(set).toHaveBeenCalledWith('folders.inbox', 'Memory/Inbox'));
    await vi.waitFor(() => expect(JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8'))).toMatchObject({ folders: { inbox: 'Memory/Inbox' } }));
    expect(set).toHaveBeenCalledTimes(2);
  });

  it("Obsidian 1.13's settings search: every row is a definition with its name, description and aliases, drawn the same", async () => {
    const home = path.join(root, 'engram');
    fs.mkdirSync(home);
    const { app } = pluginApp(root, {});
    const real = nodeConfigAccess({ ...process.env, ENGRAM_HOME: home }, { nodePath: '', cliPath: path.join(root, 'nowhere.mjs'), engramHome: home });
    const access: EngineConfigAccess = { ...real, home: real.home, runCli: vi.fn(async () => ({ code: 0, output: '' })) };
    const host: SettingsHost = { settings: { ...DEFAULT_SETTINGS }, saveSettings: async () => {}, configAccess: () => access, statusText: () => 'Engram hosts this vault here.', problem: () => undefined, vaultPath: () => root };
    const tab = new EngramSettingTab(app, {} as never, host, 50);
    // What Obsidian indexes for search when the tab is added (update), and renders instead of display().
    tab.update();
    type Item = { name: string; desc?: string; aliases?: string[]; visible?: () => boolean };
    const groups = tab.settingItems as unknown as { heading?: string; items: Item[] }[];
    expect(groups.map((g) => g.heading)).toEqual([undefined, 'Vault folders', 'Extraction', 'What gets written', 'Embeddings', 'Claude Code and Codex', 'This computer']);
    const items = groups.flatMap((g) => g.items);
    // The imperative tab (Obsidian before 1.13) shows exactly the rows the definitions name, in the same order.
    tab.display();
    const drawn = tab.containerEl.textContent ?? '';
    const shown = items.filter((i) => !i.visible || i.visible());
    let at = 0;
    for (const i of shown) {
      const found = drawn.indexOf(i.name, at);
      expect(found, i.name).toBeGreaterThanOrEqual(0);
      at = found;
    }
    // A search for the variable or the key finds its row.
    const find = (q: string) => items.filter((i) => [i.name, i.desc ?? '', ...(i.aliases ?? [])].some((t) => t.toLowerCase().includes(q.toLowerCase()))).map((i) => i.name);
    expect(find('ENGRAM_HOME')).toContain('State folder');
    expect(find('inbox')).toEqual(expect.arrayContaining(['Inbox', 'Capture mode']));
    expect(find('ollama')).toEqual(['Backend']);
    // The model row of a backend other than rules is there only while that backend is chosen.
    const model = items.find((i) => i.name === 'Model')!;
    await access.set('backend', 'rules');
    expect(model.visible!()).toBe(false);
    await access.set('backend', 'ollama');
    expect(model.visible!()).toBe(true);
    // Rendered from the definitions (as Obsidian 1.13 does), a field still saves through config.json.
    const { texts } = controls();
    tab.containerEl.empty();
    (tab as unknown as { renderTab__(): void }).renderTab__();
    texts.get('Inbox')!('Memory/Inbox');
    await vi.waitFor(() => expect(JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8'))).toMatchObject({ folders: { inbox: 'Memory/Inbox' } }));
  });
});
