// Engram's configuration: every key with its type, default, validation and description, in one table, and the
// effective configuration (defaults < config.json < ENGRAM_* environment) with where each value came from.
// Adding a key is one line in CONFIG_KEYS.
import { EngramError } from './errors.js';
import { upgradeFormat, type FormatSpec } from './format-version.js';
import { didYouMeanText } from './suggest.js';
import { CAPTURE_MODES } from './capture/mode.js';
import { boolKey, choiceKey, folderKey, foldersKey, intKey, modeRulesKey, optionalTextKey, optionalUrlKey, pathKey, pathsKey, teamUrlKey, textKey, textListKey, urlKey, type ConfigValue, type KeySpec } from './config-spec.js';


export const BACKENDS = ['claude', 'anthropic', 'ollama', 'openai', 'rules'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** Every configuration key. To add one: one line here (dots make nested objects in config.json). */
export const CONFIG_KEYS = {
  vault_path: pathKey(null, 'The Obsidian vault Engram remembers into', null),
  backend: choiceKey(BACKENDS, 'claude', 'LLM backend for extraction: claude (CLI, your subscription), anthropic, ollama, openai (compatible), rules (no LLM)'),
  'claude.command': textKey('claude', 'The Claude Code CLI to run for the claude backend'),
  'claude.model': textKey('haiku', 'Model the claude backend asks for'),
  'claude.base_url': optionalUrlKey('Anthropic API endpoint for the claude backend\'s nested CLI (unset: the CLI\'s own default or ~/.claude settings; a base URL inherited from a session is never used)'),
  'anthropic.model': textKey('claude-haiku-4-5', 'Model for the Anthropic Messages API (key from ANTHROPIC_API_KEY)'),
  'anthropic.url': urlKey('https://api.anthropic.com', 'Base URL of the Anthropic API'),
  'ollama.model': textKey('qwen2.5:7b', 'Model for the Ollama backend'),
  'ollama.url': urlKey('http://127.0.0.1:11434', 'Base URL of the Ollama server'),
  'openai.model': textKey('gpt-4o-mini', 'Model for the OpenAI-compatible backend (key from OPENAI_API_KEY)'),
  'openai.url': urlKey('https://api.openai.com/v1', 'Base URL of the OpenAI-compatible server'),
  'budget.tokens_per_day': intKey(200_000, 'Rolling-day token budget of the configured backend for background extraction (the default is for claude; until set, paid APIs, anthropic and a remote openai, spend nothing in the background, and local ones, ollama or a local openai server, have no limit)'),
  'extract.validate': boolKey(false, 'A second model call per window asks the model to confirm each grounded beat (more tokens, fewer wrong notes)'),
  'extract.retry_after_minutes': intKey(5, 'Minutes before the host retries a session whose windows failed (doubled after each failure, at most 6 hours)', 0, 360),
  'extract.keep_emails': boolKey(false, 'Keep e-mail addresses in what extraction reads and files (by default they are redacted like secrets)'),
  'extract.timeout_ms': intKey(180_000, 'How long one LLM call for a window may take (ms); past it the window stays pending and a later run retries it', 5_000, 3_600_000),
  'team.url': teamUrlKey('The team store: a PostgreSQL database the team runs (postgres://you@host:5432/db; password from ENGRAM_TEAM_PASSWORD). Unset: no team store'),
  'team.name': optionalTextKey('Which team of the store your promoted notes belong to and your recall reads'),
  'embedding.model_id': textKey('TaylorAI/bge-micro-v2', 'Embedding model (Hugging Face id); changing it rebuilds the vector index'),
  'embedding.model_path': pathKey(null, 'Local folder holding the embedding model (unset = download on first use)'),
  'embedding.multilingual': choiceKey(['auto', 'on', 'off'], 'auto', 'Which model embeds the vault: the multilingual one (on), the English embedding.model_id (off), or the multilingual one once it is present locally, else the English one (auto)'),
  'embedding.multilingual_model_id': textKey('Xenova/paraphrase-multilingual-MiniLM-L12-v2', 'Multilingual embedding model (Hugging Face id) for vaults in Chinese, Japanese, Korean, German, French and ~45 more; `engram model pull --multilingual` downloads it'),
  'embedding.multilingual_model_path': pathKey(null, 'Local folder holding the multilingual embedding model (unset = only what `engram model pull --multilingual` downloaded)'),
  'folders.inbox': folderKey('Engram/Inbox', 'Vault folder for new durable notes'),
  'folders.projects': folderKey('Engram/Projects', 'Vault folder with one subfolder per project'),
  'folders.working_memory': folderKey('Engram/Working memory', 'Vault folder for working-memory notes awaiting review'),
  'folders.archive': folderKey('Engram/Archive', 'Vault folder for archived notes'),
  'folders.log': folderKey('Engram/Log', 'Vault folder for the change log (one note per device and month)'),
  'curate.merge_confidence': intKey(70, 'Confidence (percent) the evidence must reach for restructure to propose a merge in this vault', 1, 100),
  review_after_days: intKey(28, 'Days until a working-memory note is due for review', 1, 3650),
  'recall.session_start_chars': intKey(4000, 'Most characters injected at session start', 0, 100_000),
  'recall.prompt_chars': intKey(1500, 'Most characters injected on each prompt', 0, 100_000),
  'recall.prompt_items': intKey(5, 'Most notes injected on each prompt', 0, 50),
  'recall.session_chars': intKey(24_000, 'Most characters injected over one session, all hooks together (0: no limit)', 0, 1_000_000),
  'recall.outside_folders': foldersKey(['Clippings'], 'Vault folders of outside text (clippings, imports, shared folders): found by recall and search, marked, never injected by hooks'),
  'recall.trusted_folders': foldersKey([], 'Vault folders whose notes count as your own words, whatever their frontmatter says (raises clippings you rewrote)'),
  'hooks.session_start_deadline_ms': intKey(3000, 'How long the SessionStart hook waits for context (ms); a host still running then is waited for until 9.2 s after the hook started', 100, 60_000),
  'hooks.prompt_deadline_ms': intKey(1500, 'How long the UserPromptSubmit hook waits for context (ms)', 100, 30_000),
  'capture.mode': choiceKey(CAPTURE_MODES, 'auto', 'What capture does with what it finds in a session: auto (write notes), inbox (hold each as a proposal in the review pane until you approve it), off (capture nothing)'),
  'capture.mode_by_type': modeRulesKey('Capture mode per note type, e.g. decision=inbox, gotcha=off (the strictest of the global, type and project modes applies)'),
  'capture.mode_by_project': modeRulesKey('Capture mode per project, e.g. acme=off (a project set to off is never read for capture)'),
  'capture.claude_memory': boolKey(true, "Import Claude Code's own auto memory (~/.claude/projects/<project>/memory/*.md) as notes under folders.claude_memory, following its changes; Engram never edits, moves or disables those files"),
  'folders.claude_memory': folderKey('Engram/Claude memory', "Vault folder for the notes imported from Claude Code's own memory (one subfolder per project)"),
  'privacy.private_folders': foldersKey([], 'Private vault folders: their notes are never injected by hooks, never given to agents over MCP and never named to an LLM (your own search still finds them)'),
  'privacy.private_tags': textListKey('Private tags (e.g. private, health): notes carrying one (or a tag nested under it) are private like a private folder\'s'),
  'privacy.private_projects': textListKey('Private projects (a note\'s project, e.g. acme): their notes are private like a private folder\'s (to keep a project\'s sessions from being captured too, set capture.mode_by_project acme=off)'),
  'recall.read_only': boolKey(false, 'Read-only mode for agents: MCP recall, read, search and status work; remember, forget, extract, configure, reindex and applying or rejecting proposals are refused'),
  'hooks.inject': boolKey(true, 'Whether hooks inject recalled context into sessions'),
  'hooks.stop_min_new_turns': intKey(6, 'A Stop re-queues a session only when it grew by this many records (or bytes below)'),
  'hooks.stop_min_new_bytes': intKey(16_384, 'A Stop re-queues a session only when it grew by this many bytes (or records above)'),
  'transcripts.extra_folders': pathsKey('More folders whose transcripts MCP `extract` may read, besides ~/.claude/projects and ~/.codex/sessions (absolute paths)'),
  idle_timeout_minutes: intKey(60, 'Minutes without clients after which the daemon exits', 1, 24 * 60),
  'codex.finished_after_seconds': intKey(300, 'A Codex rollout quiet this long counts as finished: the host extracts what is left of it (followed once `engram install --agent codex` ran)', 1, 24 * 3600),
} satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ConfigValueOf<K extends ConfigKey> = (typeof CONFIG_KEYS)[K] extends KeySpec<infer T> ? T : never;

export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

export function isConfigKey(k: string): k is ConfigKey {
  return Object.prototype.hasOwnProperty.call(CONFIG_KEYS, k);
}

export function keySpec(k: ConfigKey): KeySpec {
  return CONFIG_KEYS[k];
}

/** ENGRAM_<KEY> with dots as underscores (`recall.prompt_chars` → `ENGRAM_RECALL_PROMPT_CHARS`), or null. */
/**
 * The keys an agent may change through MCP `configure`: nothing that points at a backend, a path, a key or a budget,
 * which a prompt injection could abuse. Same names and ranges as `engram configure`.
 */
export const AGENT_CONFIG_KEYS: readonly ConfigKey[] = [
  'hooks.inject',
  'recall.prompt_items',
  'recall.prompt_chars',
  'recall.session_start_chars',
  'hooks.stop_min_new_turns',
  'hooks.stop_min_new_bytes',
  'idle_timeout_minutes',
];

/** The agent-facing keys with their ranges, e.g. `recall.prompt_items (0–50)`. */
export function describeAgentConfigKeys(): string {
  return AGENT_CONFIG_KEYS.map((k) => {
    const s = keySpec(k);
    return s.type === 'integer' ? `${k} (${s.min}–${s.max})` : `${k} (true/false)`;
  }).join(', ');
}

export function envNameOf(k: ConfigKey): string | null {
  const s = keySpec(k);
  if (s.env === null) return null;
  return s.env ?? `ENGRAM_${k.toUpperCase().replace(/\./g, '_')}`;
}

export const CONFIG_FORMAT: FormatSpec<Record<string, unknown>> = { name: 'config.json', current: 1 };

export type ConfigSource = 'default' | 'config file' | 'environment';

export interface EffectiveEntry {
  key: ConfigKey;
  value: ConfigValue;
  source: ConfigSource;
  /** The variable name when the source is the environment. */
  env?: string;
  description: string;
}

export class EffectiveConfig {
  constructor(
    readonly entries: Map<ConfigKey, EffectiveEntry>,
    /** Values that were present but invalid (ignored, default used), and unknown keys in the file. */
    readonly problems: string[],
  ) {}

  get<K extends ConfigKey>(key: K): ConfigValueOf<K> {
    const e = this.entries.get(key);
    return (e ? e.value : CONFIG_KEYS[key].default) as ConfigValueOf<K>;
  }

  source(key: ConfigKey): ConfigSource {
    return this.entries.get(key)?.source ?? 'default';
  }
}

function getNested(obj: Record<string, unknown>, key: string): unknown {
  let cur: unknown = obj;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function leafKeys(obj: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const full = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isConfigKey(full)) out.push(...leafKeys(v as Record<string, unknown>, full));
    else out.push(full);
  }
  return out;
}

/** `:line:column` of a JSON.parse error (from its "position N", or the line it names), or empty. */
export function jsonErrorLine(text: string, message: string): string {
  const named = /line (\d+) column (\d+)/.exec(message);
  if (named) return `:${named[1]}:${named[2]}`;
  const pos = /position (\d+)/.exec(message);
  if (pos) {
    const before = text.slice(0, Number(pos[1]));
    const line = before.split('\n').length;
    return `:${line}:${Number(pos[1]) - (before.lastIndexOf('\n') + 1) + 1}`;
  }
  // "Unexpected end of JSON input": the file stops short.
  if (/end of JSON/i.test(message)) return `:${text.split('\n').length}`;
  return '';
}

/** Parses config.json text (refusing a newer format, migrating an older one). */
export function parseConfigFile(text: string, where: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EngramError('invalid-config', `${where}${jsonErrorLine(text, (e as Error).message)} is not valid JSON: ${(e as Error).message}`, 'fix that line (or delete the file), then run `engram configure` to check it');
  }
  return upgradeFormat(CONFIG_FORMAT, raw, where).data;
}

/**
 * Defaults, then the file's values, then ENGRAM_* environment variables; invalid values are reported and skipped. An
 * invalid value in the file falls back on the same key in `lastGood` (the last file read without a problem) when it
 * holds a valid one there, else on the default.
 */
export function effectiveConfig(file: Record<string, unknown> | null, env: Record<string, string | undefined>, lastGood?: Record<string, unknown> | null): EffectiveConfig {
  const entries = new Map<ConfigKey, EffectiveEntry>();
  const problems: string[] = [];
  for (const key of CONFIG_KEY_NAMES) {
    const s = keySpec(key);
    let entry: EffectiveEntry = { key, value: s.default, source: 'default', description: s.description };
    const fromFile = file ? getNested(file, key) : undefined;
    if (fromFile !== undefined) {
      const r = s.check(fromFile);
      if (r.ok) entry = { ...entry, value: r.value, source: 'config file' };
      else {
        const before = lastGood ? getNested(lastGood, key) : undefined;
        const good = before === undefined ? undefined : s.check(before);
        if (good?.ok) entry = { ...entry, value: good.value, source: 'config file' };
        problems.push(`config.json: ${key} should be ${r.error}, found ${JSON.stringify(fromFile)}; using ${JSON.stringify(entry.value)}${good?.ok ? ' (its last good value)' : ' (the default)'}`);
      }
    }
    const name = envNameOf(key);
    const fromEnv = name ? env[name] : undefined;
    if (name && fromEnv !== undefined && fromEnv !== '') {
      const r = s.check(fromEnv);
      if (r.ok) entry = { ...entry, value: r.value, source: 'environment', env: name };
      else problems.push(`${name} should be ${r.error}, found ${JSON.stringify(fromEnv)}; ignored`);
    }
    entries.set(key, entry);
  }
  if (file) {
    for (const k of leafKeys(file)) {
      if (k !== 'version' && !isConfigKey(k)) problems.push(`config.json: unknown key ${k} (ignored)${didYouMeanText(k, CONFIG_KEY_NAMES)}`);
    }
  }
  return new EffectiveConfig(entries, problems);
}

export function unknownKeyError(key: string): EngramError {
  return new EngramError('usage', `unknown configuration key "${key}"${didYouMeanText(key, CONFIG_KEY_NAMES)}`, `valid keys: ${CONFIG_KEY_NAMES.join(', ')}`);
}

/**
 * Returns a copy of the file's data with one key set (or removed when `value` is null and the key has no null value).
 * Refuses unknown keys and invalid values with the list of valid keys or the expected type.
 */
export function setConfigValue(file: Record<string, unknown> | null, key: string, value: unknown): Record<string, unknown> {
  if (!isConfigKey(key)) throw unknownKeyError(key);
  const s = keySpec(key);
  const r = s.check(value);
  if (!r.ok) throw new EngramError('invalid-config', `${key} must be ${r.error}, got ${JSON.stringify(value)}`, `${key}: ${s.description}`);
  const out = structuredClone(file ?? {});
  out.version = CONFIG_FORMAT.current;
  const parts = key.split('.');
  let cur = out;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = r.value;
  return out;
}

/** Removes a key from the file's data (its default applies again). */
export function unsetConfigValue(file: Record<string, unknown> | null, key: string): Record<string, unknown> {
  if (!isConfigKey(key)) throw unknownKeyError(key);
  const out = structuredClone(file ?? {});
  out.version = CONFIG_FORMAT.current;
  const parts = key.split('.');
  const parents: Record<string, unknown>[] = [out];
  let cur: Record<string, unknown> = out;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) return out;
    cur = next as Record<string, unknown>;
    parents.push(cur);
  }
  delete cur[parts[parts.length - 1]];
  // Drop objects left empty, so the file stays tidy.
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]).length === 0) delete parents[i - 1][parts[i - 1]];
  }
  return out;
}

export function serializeConfigFile(data: Record<string, unknown>): string {
  const { version, ...rest } = data;
  return `${JSON.stringify({ version: version ?? CONFIG_FORMAT.current, ...rest }, null, 2)}\n`;
}
