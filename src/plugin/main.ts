// The Obsidian host: lifecycle only. Settings load here; hosting starts once the workspace layout is ready (never in
// onload) and only on desktop, where the Node part (src/plugin/node/) is loaded on demand.
import { Notice, Platform, Plugin, requireApiVersion, type FileSystemAdapter, type ItemView, type WorkspaceLeaf } from 'obsidian';
import { DEFAULT_SETTINGS, EngramSettingTab, migrateSettings, type EngineConfigAccess, type EngramSettings, type SettingsHost } from './settings';
import { describeHost, type HostState } from './status-bar';
import { ObsidianVault } from './obsidian/vault-port';
import { followVault } from './obsidian/vault-events';
import type { PluginHost } from './node/host';
import type { PaneContext } from './views/api';
import { registerCommands } from './commands';
import { SearchView, VIEW_TYPE_SEARCH } from './views/search-view';
import { DashboardView, VIEW_TYPE_DASHBOARD } from './views/dashboard-view';
import { ActivityView, VIEW_TYPE_ACTIVITY } from './views/activity-view';
import { RelatedView, VIEW_TYPE_RELATED } from './views/related-view';
import { RestructureView, VIEW_TYPE_RESTRUCTURE } from './views/restructure-view';
import { ReviewView, VIEW_TYPE_REVIEW } from './views/review-view';

/** Each pane's view type and how to make it over the panes' context. */
const PANES: Record<string, (leaf: WorkspaceLeaf, ctx: PaneContext) => ItemView> = {
  [VIEW_TYPE_SEARCH]: (leaf, ctx) => new SearchView(leaf, ctx),
  [VIEW_TYPE_DASHBOARD]: (leaf, ctx) => new DashboardView(leaf, ctx),
  [VIEW_TYPE_ACTIVITY]: (leaf, ctx) => new ActivityView(leaf, ctx),
  [VIEW_TYPE_RELATED]: (leaf, ctx) => new RelatedView(leaf, ctx),
  [VIEW_TYPE_RESTRUCTURE]: (leaf, ctx) => new RestructureView(leaf, ctx),
  [VIEW_TYPE_REVIEW]: (leaf, ctx) => new ReviewView(leaf, ctx),
};

export default class EngramPlugin extends Plugin implements SettingsHost {
  settings: EngramSettings = { ...DEFAULT_SETTINGS };
  private statusEl!: HTMLElement;
  private state: HostState = { kind: 'starting' };
  private host?: PluginHost;
  private starting?: Promise<void>;
  /** Settles once the host has saved and released everything after unload (tests wait on it). */
  unloaded: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  /** What the panes and commands get: the API while this vault is hosted here, and a signal when that changes. */
  readonly panes: PaneContext = {
    api: () => this.host?.api(),
    onChange: (listener) => {
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    },
  };

  async onload(): Promise<void> {
    this.settings = migrateSettings(await this.loadData());
    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass('engram-status', 'mod-clickable');
    // A click opens the review pane (the item shows how many notes are due).
    this.registerDomEvent(this.statusEl, 'click', () => void this.openPane(VIEW_TYPE_REVIEW));
    this.addSettingTab(new EngramSettingTab(this.app, this, this));
    this.registerPanes();
    registerCommands(this, this.panes, { open: (type) => this.openPane(type) });
    const base = this.vaultPath();
    if (!Platform.isDesktopApp || !base) {
      this.show({ kind: 'none', why: 'Engram hosts only in the desktop app, for a vault on the local disk.' });
      return;
    }
    this.show({ kind: 'starting' });
    this.app.workspace.onLayoutReady(() => {
      this.starting = this.startHosting(base).catch((e) => {
        const why = e instanceof Error ? e.message : String(e);
        this.show({ kind: 'none', why });
        new Notice(`Engram could not host this vault: ${why}`);
      });
    });
  }

  onunload(): void {
    const starting = this.starting ?? Promise.resolve();
    this.unloaded = starting.then(() => this.host?.stop('Obsidian closed the vault'));
  }

  /** The panes: registered at load (cheap), drawn only when opened. */
  private registerPanes(): void {
    for (const [type, make] of Object.entries(PANES)) this.registerView(type, (leaf) => make(leaf, this.panes));
  }

  /** Opens (or reveals) a pane: review, restructure and search as tabs, related in the right sidebar. */
  async openPane(type: string): Promise<void> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(type)[0];
    if (!leaf) {
      leaf = (type === VIEW_TYPE_RELATED ? workspace.getRightLeaf(false) : workspace.getLeaf('tab')) ?? workspace.getLeaf('tab');
      await leaf.setViewState({ type, active: true });
    }
    // Shows it even in a collapsed sidebar or a background tab (Obsidian 1.7.2 and later; before, focusing it is all).
    if (requireApiVersion('1.7.2')) await workspace.revealLeaf(leaf);
    workspace.setActiveLeaf(leaf, { focus: true });
  }

  private async startHosting(vaultPath: string): Promise<void> {
    const { PluginHost } = await import('./node/host');
    const vault = new ObsidianVault(this.app);
    this.host = await PluginHost.start({
      vaultPath,
      vault,
      follow: (onChange) => {
        const stop = followVault(this.app, (batch) => batch.forEach(onChange), { debounceMs: 300 });
        return { close: stop };
      },
      settings: this.settings,
      onState: (s) => this.show(s),
      tell: (message) => new Notice(message, 10_000),
    });
    if (this.settings.engramHome !== this.host.home) {
      this.settings.engramHome = this.host.home;
      await this.saveSettings();
    }
  }

  private show(s: HostState): void {
    const changed = s.kind !== this.state.kind || (s.kind === 'here' && this.state.kind === 'here' && (s.notes !== this.state.notes || s.due !== this.state.due || !s.indexing !== !this.state.indexing));
    this.state = s;
    if (changed) for (const l of [...this.listeners]) l();
    const { text, title } = describeHost(s);
    this.statusEl.setText(text);
    this.statusEl.setAttr('aria-label', title);
  }

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
  }

  /** The vault's folder on disk; undefined for a vault Obsidian does not keep on the local file system. */
  vaultPath(): string | undefined {
    // FileSystemAdapter's own method (duck-typed: the desktop adapter is the only one that has it).
    const adapter = this.app.vault.adapter as Partial<Pick<FileSystemAdapter, 'getBasePath'>>;
    return typeof adapter.getBasePath === 'function' ? adapter.getBasePath() : undefined;
  }

  statusText(): string {
    return describeHost(this.state).title;
  }

  problem(): string | undefined {
    return this.host?.problem();
  }

  configAccess(): EngineConfigAccess | undefined {
    return this.host?.config();
  }

  /** The running host (the panes and commands of the next issue read the live engine through it). */
  get engramHost(): PluginHost | undefined {
    return this.host;
  }
}
