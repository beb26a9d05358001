// The plugin's own settings (data.json: how this Obsidian reaches Node and Engram's state) and the settings tab, which
// also shows and edits Engram's configuration ($ENGRAM_HOME/config.json, shared with the CLI) through the host.
import { App, Notice, PluginSettingTab, Setting, type Plugin, type SettingDefinitionItem } from 'obsidian';
import { ConfirmModal } from './modals/confirm-modal';

export interface EngramSettings {
  /** Format of this file, for migrations. */
  version: number;
  /** The $ENGRAM_HOME this plugin uses, stored so that `engram doctor` can compare it with the CLI's. */
  engramHome: string;
  /** The Node binary for the embedding child and the CLI ('' = found on PATH). */
  nodePath: string;
  /** The `engram` CLI to run ('' = the shim `engram install` put in $ENGRAM_HOME/bin). */
  cliPath: string;
}

export const SETTINGS_VERSION = 1;

export const DEFAULT_SETTINGS: Readonly<EngramSettings> = { version: SETTINGS_VERSION, engramHome: '', nodePath: '', cliPath: '' };

/** Reads data.json whatever its age: unknown keys are dropped, missing ones take their defaults. */
export function migrateSettings(data: unknown): EngramSettings {
  const raw = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  const text = (k: keyof EngramSettings, legacy?: string): string => {
    const v = raw[k] ?? (legacy ? raw[legacy] : undefined);
    return typeof v === 'string' ? v.trim() : '';
  };
  // Before version 1 the only key was `engramHome`; `node`/`cli` were never written by a release, but are accepted.
  return { version: SETTINGS_VERSION, engramHome: text('engramHome'), nodePath: text('nodePath', 'node'), cliPath: text('cliPath', 'cli') };
}

/** Engram's configuration and integrations, as the host reads and writes them (src/plugin/node/config-access.ts). */
export interface EngineConfigAccess {
  /** The $ENGRAM_HOME in use. */
  readonly home: string;
  get(key: string): unknown;
  /** Checks and saves one key of config.json; rejects with a message a user can act on. */
  set(key: string, value: unknown): Promise<void>;
  /** The embedding model: present here, or where `engram model pull` would download it from. */
  model(): { id: string; present: boolean; where: string; source: string };
  /** Files that hold Engram's hook and MCP registrations (empty: not installed). */
  registrations(): string[];
  /** What is missing to run the CLI (Node, the `engram` command), if anything. */
  cliProblem(): string | undefined;
  /** Runs `engram <args>` and returns its output. */
  runCli(args: string[]): Promise<{ code: number; output: string }>;
}

/** A configuration value as a text field shows it. */
function textOf(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

const FOLDERS: Array<[string, string]> = [
  ['folders.inbox', 'Inbox'],
  ['folders.projects', 'Projects'],
  ['folders.working_memory', 'Working memory'],
  ['folders.archive', 'Archive'],
  ['folders.log', 'Change log'],
];

const CAPTURE_MODE_LABELS: Record<string, string> = {
  auto: 'Automatic: write notes at once',
  inbox: 'Inbox: hold new notes for my approval',
  off: 'Off: capture nothing',
};

/** A list value (config keeps a JSON array) as one comma-separated text field. */
function listText(v: unknown): string {
  return Array.isArray(v) ? v.join(', ') : textOf(v);
}

const BACKENDS: Record<string, string> = {
  claude: 'Claude Code CLI (your subscription)',
  anthropic: 'Anthropic API (ANTHROPIC_API_KEY)',
  ollama: 'Ollama (local)',
  openai: 'OpenAI-compatible server',
  rules: 'Rules only (no model, offline)',
};

/** What the tab needs from the plugin (main.ts implements it; the tab never imports main). */
export interface SettingsHost {
  settings: EngramSettings;
  saveSettings(): Promise<void>;
  configAccess(): EngineConfigAccess | undefined;
  statusText(): string;
  problem(): string | undefined;
  vaultPath(): string | undefined;
}

/** One row of the tab: its name, description and search aliases, and what it draws into its Setting. */
interface Row {
  name: string;
  desc?: string;
  aliases?: string[];
  /** Shown only while this holds (the model of a backend other than rules). */
  visible?: () => boolean;
  render?: (setting: Setting) => unknown;
}

/** Rows under one heading (none for the host's status at the top). */
interface Section {
  heading?: string;
  rows: Row[];
}

/** A text field saves once typing pauses this long: a model id change rebuilds the vectors, never once per keystroke. */
export const SAVE_DELAY_MS = 800;

export class EngramSettingTab extends PluginSettingTab {
  /** Saves waiting for typing to pause, by what they save; run at once when the tab closes. */
  private readonly pending = new Map<string, { timer: number; run: () => Promise<void> }>();

  constructor(app: App, plugin: Plugin, private readonly host: SettingsHost, private readonly saveDelayMs = SAVE_DELAY_MS) {
    super(app, plugin);
  }

  /** Runs `run` once typing in the field `what` has paused (each keystroke restarts the wait). */
  private saveLater(what: string, run: () => Promise<void>): void {
    const before = this.pending.get(what);
    if (before) window.clearTimeout(before.timer);
    const timer = window.setTimeout(() => {
      this.pending.delete(what);
      void run();
    }, this.saveDelayMs);
    this.pending.set(what, { timer, run });
  }

  hide(): void {
    for (const { timer, run } of this.pending.values()) {
      window.clearTimeout(timer);
      void run();
    }
    this.pending.clear();
    super.hide();
  }

  /**
   * Obsidian 1.13 and newer: the settings as definitions, which its settings search indexes (each row's name,
   * description and aliases) and which it renders in place of `display`. Older versions never call this and render
   * `display`; both draw the same rows from `sections`.
   */
  getSettingDefinitions(): SettingDefinitionItem[] {
    return this.sections().map((section) => ({
      type: 'group' as const,
      ...(section.heading ? { heading: section.heading } : {}),
      items: section.rows.map((row) => ({
        name: row.name,
        ...(row.desc ? { desc: row.desc } : {}),
        ...(row.aliases ? { aliases: row.aliases } : {}),
        ...(row.visible ? { visible: row.visible } : {}),
        render: (setting: Setting) => void row.render?.(setting),
      })),
    }));
  }

  /** Obsidian before 1.13 (and 1.13 when the definitions are empty): the same rows, drawn imperatively. */
  display(): void {
    const { containerEl } = this;
    containerEl.empty();
    for (const section of this.sections()) {
      if (section.heading) new Setting(containerEl).setName(section.heading).setHeading();
      for (const row of section.rows) {
        if (row.visible && !row.visible()) continue;
        const setting = new Setting(containerEl).setName(row.name);
        if (row.desc) setting.setDesc(row.desc);
        void row.render?.(setting);
      }
    }
  }

  /**
   * Draws the tab again after a change that alters its rows: where Obsidian renders definitions (1.13 and newer,
   * feature-detected, not by version number), by re-reading them and applying each row's `visible`; elsewhere by
   * `display`.
   */
  private redraw(): void {
    const api = this as unknown as { update?: () => void; refreshDomState?: () => void; settingItems?: unknown[]; display(): void };
    if (typeof api.update === 'function' && typeof api.refreshDomState === 'function' && api.settingItems?.length) {
      api.update();
      api.refreshDomState();
    } else api.display();
  }

  private sections(): Section[] {
    const access = this.host.configAccess();
    const status: Section = { rows: [{ name: 'Host', desc: this.host.statusText(), aliases: ['status', 'engine'] }] };
    if (!access) {
      status.rows.push({ name: 'Engram settings are unavailable', desc: this.host.problem() ?? 'The engine has not started yet.' });
      return [status, this.localSettings()];
    }
    return [status, this.folderSettings(access), this.extractionSettings(access), this.captureSettings(access), this.embeddingSettings(access), this.integrationSettings(access), this.localSettings()];
  }

  private folderSettings(access: EngineConfigAccess): Section {
    return {
      heading: 'Vault folders',
      rows: FOLDERS.map(([key, name]) => ({
        name,
        aliases: ['folder', key],
        render: this.configText(access, () => key),
      })),
    };
  }

  private extractionSettings(access: EngineConfigAccess): Section {
    const backend = () => String(access.get('backend'));
    return {
      heading: 'Extraction',
      rows: [
        {
          name: 'Backend',
          desc: 'The model that reads finished sessions and files what is worth keeping.',
          aliases: ['LLM', 'model', 'Claude', 'Anthropic', 'Ollama', 'OpenAI', 'rules', 'backend'],
          render: (s) =>
            s.addDropdown((d) => {
              for (const [k, label] of Object.entries(BACKENDS)) d.addOption(k, label);
              d.setValue(backend()).onChange(async (v) => {
                await this.save(access, 'backend', v);
                this.redraw();
              });
            }),
        },
        {
          name: 'Model',
          aliases: ['model id'],
          visible: () => backend() !== 'rules',
          render: this.configText(access, () => `${backend()}.model`),
        },
        {
          name: 'Daily token budget',
          desc: 'Background extraction stops for the day once it has used this many tokens.',
          aliases: ['cost', 'tokens', 'budget.tokens_per_day'],
          render: this.configText(access, () => 'budget.tokens_per_day'),
        },
      ],
    };
  }

  /** Write control: what capture does with what it finds (capture.mode), per note type and per project. */
  private captureSettings(access: EngineConfigAccess): Section {
    // A list field is saved when it is left (a pair half typed is not yet valid).
    const list = (key: string, name: string, desc: string, placeholder: string, aliases: string[]): Row => ({
      name,
      desc,
      aliases: [...aliases, key],
      render: (s) =>
        s.addText((t) => {
          t.setPlaceholder(placeholder).setValue(listText(access.get(key)));
          t.inputEl.addEventListener('change', () => void this.save(access, key, t.getValue()));
        }),
    });
    const rules = (key: string, name: string, desc: string): Row => list(key, name, desc, 'decision=inbox, gotcha=off', ['capture']);
    const zone = (key: string, name: string, desc: string, placeholder: string): Row => list(key, name, desc, placeholder, ['private', 'privacy']);
    return {
      heading: 'What gets written',
      rows: [
        {
          name: 'Capture mode',
          desc: 'Automatic writes notes at once; inbox holds each new note in the review pane until you approve it; off captures nothing.',
          aliases: ['capture', 'inbox', 'approve', 'capture.mode'],
          render: (s) =>
            s.addDropdown((d) => {
              for (const [k, label] of Object.entries(CAPTURE_MODE_LABELS)) d.addOption(k, label);
              d.setValue(String(access.get('capture.mode'))).onChange((v) => void this.save(access, 'capture.mode', v));
            }),
        },
        rules('capture.mode_by_type', 'Mode per note type', 'Comma-separated type=mode pairs (auto, inbox or off). The strictest of the global, type and project modes applies.'),
        rules('capture.mode_by_project', 'Mode per project', 'Comma-separated project=mode pairs. A project set to off is never read for capture.'),
        // Private zones: never injected, never given to agents, never sent to a model (your own search still finds them).
        zone('privacy.private_folders', 'Private folders', 'Comma-separated vault folders: their notes are never injected, never given to agents and never sent to a model.', 'Journal, Work/HR'),
        zone('privacy.private_tags', 'Private tags', 'Comma-separated tags: a note carrying one (or a tag nested under it) is private.', 'private, health'),
        zone('privacy.private_projects', 'Private projects', 'Comma-separated projects: their notes are private. To stop capturing their sessions too, set the project to off above.', 'acme'),
      ],
    };
  }

  private embeddingSettings(access: EngineConfigAccess): Section {
    const model = access.model();
    const problem = this.host.problem();
    const rows: Row[] = [];
    if (problem) rows.push({ name: 'Search uses words only', desc: problem });
    rows.push({
      name: 'Embedding model',
      desc: 'Search by meaning as well as by words. Changing it rebuilds the vectors.',
      aliases: ['vectors', 'semantic', 'meaning', 'embedding.model_id'],
      render: (s) => s.addText((t) => t.setValue(model.id).onChange((v) => this.saveLater('embedding.model_id', () => this.save(access, 'embedding.model_id', v)))),
    });
    rows.push({
      name: model.present ? 'Model present' : 'No model yet',
      desc: model.present ? `In ${model.where}.` : `Search uses words only until a model is present. It would be downloaded from ${model.source} into ${model.where}.`,
      aliases: ['download', 'model pull'],
      render: (s) => {
        if (model.present) return;
        s.addButton((b) =>
          b.setButtonText('Download…').onClick(() => {
            new ConfirmModal(this.app, 'Download the embedding model?', `Engram will download ${model.id} from ${model.source} into ${model.where}. Nothing else is sent.`, 'Download', async () => {
              await this.runCli(access, ['model', 'pull'], 'Embedding model downloaded');
            }).open();
          }),
        );
      },
    });
    return { heading: 'Embeddings', rows };
  }

  private integrationSettings(access: EngineConfigAccess): Section {
    const files = access.registrations();
    const problem = access.cliProblem();
    return {
      heading: 'Claude Code and Codex',
      rows: [
        {
          name: files.length ? 'Hooks and MCP server installed' : 'Hooks and MCP server not installed',
          desc: problem ?? (files.length ? `Registered in ${files.join(', ')}.` : 'Sessions are not captured and agents cannot recall until Engram is installed.'),
          aliases: ['install', 'hooks', 'MCP', 'Claude Code', 'Codex'],
          render: (s) =>
            s.addButton((b) =>
              b
                .setButtonText(files.length ? 'Install again' : 'Install')
                .setDisabled(Boolean(problem))
                .onClick(async () => {
                  // Hooks find the vault through vault_path when a project names none.
                  const vault = this.host.vaultPath();
                  if (vault && !access.get('vault_path')) await this.save(access, 'vault_path', vault);
                  await this.runCli(access, ['install'], 'Engram installed for Claude Code');
                  this.redraw();
                }),
            ),
        },
        {
          name: 'State folder',
          desc: `Engram keeps its index, queue and logs in ${access.home} (ENGRAM_HOME). The command line must use the same folder; \`engram doctor\` checks it. A change applies when the plugin next loads.`,
          aliases: ['ENGRAM_HOME', 'state', 'index', 'logs'],
          render: this.localText('engramHome'),
        },
      ],
    };
  }

  private localSettings(): Section {
    return {
      heading: 'This computer',
      rows: [
        {
          name: 'Node path',
          desc: 'The Node 20 (or newer) that runs the embedding child and the command line. Empty: found on PATH.',
          aliases: ['node', 'nodejs'],
          render: this.localText('nodePath', '/usr/local/bin/node'),
        },
        {
          name: 'Command line path',
          desc: 'The engram command (or its dist/engram.mjs). Empty: the one `engram install` placed in the state folder.',
          aliases: ['CLI', 'engram command'],
          render: this.localText('cliPath'),
        },
      ],
    };
  }

  /** A text field over one key of config.json (`key` read as it is drawn and saved), saved once typing pauses. */
  private configText(access: EngineConfigAccess, key: () => string): (s: Setting) => unknown {
    return (s) => s.addText((t) => t.setValue(textOf(access.get(key()))).onChange((v) => this.saveLater(key(), () => this.save(access, key(), v))));
  }

  /** A text field over one of this computer's settings (data.json), saved once typing pauses. */
  private localText(key: 'engramHome' | 'nodePath' | 'cliPath', placeholder?: string): (s: Setting) => unknown {
    return (s) =>
      s.addText((t) => {
        if (placeholder) t.setPlaceholder(placeholder);
        t.setValue(this.host.settings[key]).onChange((v) => {
          this.host.settings[key] = v.trim();
          this.saveLater(key, () => this.host.saveSettings());
        });
      });
  }

  private async save(access: EngineConfigAccess, key: string, value: unknown): Promise<void> {
    try {
      await access.set(key, value);
    } catch (e) {
      new Notice(`Engram: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async runCli(access: EngineConfigAccess, args: string[], done: string): Promise<void> {
    const notice = new Notice(`Engram: running engram ${args.join(' ')}…`, 0);
    try {
      const r = await access.runCli(args);
      notice.hide();
      new Notice(r.code === 0 ? `Engram: ${done}` : `Engram: engram ${args[0]} failed: ${r.output.trim().split('\n').pop() ?? ''}`);
    } catch (e) {
      notice.hide();
      new Notice(`Engram: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
