// @vitest-environment happy-dom
// What Obsidian 1.13's settings search indexes: the definitions the tab gives the API (`getSettingDefinitions`, read by
// `update`), each row's name, description and aliases. Every row a user sees in the tab, drawn by either path (the
// definitions Obsidian 1.13 renders, or `display` before 1.13), must be findable there by its name and its
// description, in both states of the tab (the engine's settings available, or not yet).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngramSettingTab, DEFAULT_SETTINGS, type EngineConfigAccess, type SettingsHost } from '../../src/plugin/settings';
import { nodeConfigAccess } from '../../src/plugin/node/config-access';
import { pluginApp } from '../helpers/plugin-app';
import { makeTempDir, removeDir } from '../helpers/temp';

let root: string;
beforeEach(() => {
  root = makeTempDir('engram-settings-search-');
});
afterEach(() => {
  vi.restoreAllMocks();
  removeDir(root);
});

interface Indexed {
  heading?: string;
  name: string;
  desc: string;
  aliases: string[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v instanceof Node ? (v.textContent ?? '') : '');

/** The entries the API gets to index: one per row, with its group's heading; rows hidden right now included. */
function indexed(tab: EngramSettingTab): (Indexed & { visible: () => boolean })[] {
  tab.update();
  const groups = tab.settingItems as unknown as { heading?: string; items: { name: unknown; desc?: unknown; aliases?: string[]; visible?: () => boolean }[] }[];
  return groups.flatMap((g) => g.items.map((i) => ({ heading: g.heading, name: text(i.name), desc: text(i.desc), aliases: i.aliases ?? [], visible: i.visible ?? (() => true) })));
}

/** The rows a user sees, as [name, description]: each drawn row is [control, info [name, description]] in the mocks. */
function seen(rows: HTMLElement[]): [string, string][] {
  return rows
    .filter((r) => r.style.display !== 'none' && r.children[1]?.children.length === 2)
    .map((r) => [r.children[1]!.children[0]!.textContent ?? '', r.children[1]!.children[1]!.textContent ?? '']);
}

function makeTab(available: boolean): { tab: EngramSettingTab; access?: EngineConfigAccess } {
  const home = path.join(root, 'engram');
  fs.mkdirSync(home, { recursive: true });
  const { app } = pluginApp(root, {});
  const real = nodeConfigAccess({ ...process.env, ENGRAM_HOME: home }, { nodePath: '', cliPath: path.join(root, 'nowhere.mjs'), engramHome: home });
  const access: EngineConfigAccess = { ...real, home: real.home, runCli: vi.fn(async () => ({ code: 0, output: '' })) };
  const host: SettingsHost = {
    settings: { ...DEFAULT_SETTINGS }, saveSettings: async () => {}, configAccess: () => (available ? access : undefined),
    statusText: () => 'Engram hosts this vault here.', problem: () => (available ? undefined : 'The engine has not started yet.'), vaultPath: () => root,
  };
  return { tab: new EngramSettingTab(app, {} as never, host, 50), access: available ? access : undefined };
}

describe("Obsidian's settings search", () => {
  for (const available of [true, false]) {
    it(`indexes every row the tab shows, by its name and description (${available ? 'engine settings available' : 'not yet available'})`, async () => {
      const { tab, access } = makeTab(available);
      if (access) await access.set('backend', 'ollama'); // the backend's model row shows too
      const entries = indexed(tab);
      expect(entries.length).toBeGreaterThan(available ? 20 : 2);
      for (const e of entries) expect(e.name.trim(), JSON.stringify(e)).not.toBe('');

      // Before 1.13: `display` draws the rows; each one is in the index with the same name and description.
      tab.display();
      // (A group's heading is a row of its own there, and is the group's heading in the index.)
      const headings = new Set(entries.map((e) => e.heading));
      const drawn = seen([...tab.containerEl.children] as HTMLElement[]).filter(([name, desc]) => !(headings.has(name) && desc === '' && !entries.some((e) => e.name === name)));
      const visible = entries.filter((e) => e.visible());
      expect(drawn).toEqual(visible.map((e) => [e.name, e.desc]));

      // 1.13: the same definitions rendered by Obsidian show the same rows.
      tab.containerEl.empty();
      (tab as unknown as { renderTab__(): void }).renderTab__();
      const rendered = (tab as unknown as { getRenderedRows__(): { settingEl: HTMLElement; isVisible: boolean }[] }).getRenderedRows__();
      expect(seen(rendered.filter((r) => r.isVisible).map((r) => r.settingEl))).toEqual(drawn);

      // What a search finds: words of a description find its row, not only its name.
      const find = (q: string) => entries.filter((e) => [e.name, e.desc, ...e.aliases].some((t) => t.toLowerCase().includes(q.toLowerCase()))).map((e) => e.name);
      for (const e of visible.filter((x) => x.desc.length > 20)) {
        const word = e.desc.split(/\W+/).filter((w) => w.length > 6).sort((a, b) => b.length - a.length)[0];
        if (word) expect(find(word), `${e.name}: "${word}"`).toContain(e.name);
      }
    });
  }
});
