// Creates the configured LLM backend on the Node host: API keys from the environment (never written anywhere),
// the `claude` CLI found on PATH or in its usual install folders, a fresh empty directory per nested call; and says
// where each backend's credentials come from (status, doctor).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { BACKENDS, type EffectiveConfig, type BackendName } from '../../src/core/config.js';
import { AnthropicBackend } from '../../src/core/extract/backends/anthropic.js';
import { ClaudeBackend, claudeBillsApiKey, type TempDir } from '../../src/core/extract/backends/claude.js';
import { OllamaBackend } from '../../src/core/extract/backends/ollama.js';
import { OpenAiBackend } from '../../src/core/extract/backends/openai.js';
import { RulesBackend } from '../../src/core/extract/backends/rules.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import type { RetryPolicy } from '../../src/core/extract/backends/retry.js';
import { isLocalUrl } from '../../src/core/extract/usage.js';
import { EngramError } from '../../src/core/errors.js';
import { NodeSpawn } from './node-spawn.js';
import { claudeDir, engramHome, readJson } from './paths.js';
import { homeDir } from './facts.js';

/** A file this user may run (not a folder). */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The `claude` executable: a configured path as is; else PATH, then the installer's usual folders. */
export function findClaude(configured: string, env: NodeJS.ProcessEnv): string {
  if (configured.includes('/') || configured.includes('\\')) return configured;
  const names = process.platform === 'win32' ? [`${configured}.cmd`, `${configured}.exe`, configured] : [configured];
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const n of names) if (isExecutable(path.join(dir, n))) return path.join(dir, n);
  }
  const home = homeDir(env);
  for (const candidate of [path.join(home, '.claude', 'local', 'claude'), path.join(home, '.local', 'bin', 'claude'), '/usr/local/bin/claude', '/opt/homebrew/bin/claude']) {
    if (isExecutable(candidate)) return candidate;
  }
  return configured;
}

/**
 * The OS keychain's command line, the one place that knows it: macOS `security` (the login keychain; untested by
 * Engram's suites, which run on Linux, where a stand-in checks the arguments), Linux libsecret's `secret-tool`. A
 * secret is stored under service "engram" with the variable's name as account/key; undefined where there is none.
 */
export function keychainCommand(platform: NodeJS.Platform, name: string): { lookup: string[]; store: (value: string) => { argv: string[]; input?: string }; where: string } | undefined {
  if (platform === 'darwin')
    return { lookup: ['security', 'find-generic-password', '-s', 'engram', '-a', name, '-w'], store: (value) => ({ argv: ['security', 'add-generic-password', '-U', '-s', 'engram', '-a', name, '-w', value] }), where: 'the macOS keychain' };
  if (platform === 'linux')
    return { lookup: ['secret-tool', 'lookup', 'service', 'engram', 'key', name], store: (value) => ({ argv: ['secret-tool', 'store', '--label', `Engram ${name}`, 'service', 'engram', 'key', name], input: value }), where: 'the Secret Service keyring (secret-tool)' };
  return undefined;
}

/** An API key: the environment variable, else the OS keychain (keychainCommand). Never logged or written. */
export function apiKey(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const fromEnv = env[name]?.trim();
  if (fromEnv) return fromEnv;
  const lookup = keychainCommand(platform, name)?.lookup;
  if (!lookup) return undefined;
  const r = spawnSync(lookup[0], lookup.slice(1), { env, encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
  const key = r.status === 0 ? r.stdout.trim() : '';
  return key || undefined;
}

/**
 * Keeps a secret in the OS keychain where `apiKey` finds it; returns why not when there is no keychain tool here (the
 * secret is then not kept anywhere: the environment must give it).
 */
export function saveKeychainSecret(name: string, value: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): { ok: true; where: string } | { ok: false; why: string } {
  const keychain = keychainCommand(platform, name);
  if (!keychain) return { ok: false, why: `no OS keychain Engram can use on ${platform}` };
  const { argv, input } = keychain.store(value);
  const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8', timeout: 10_000, input, stdio: ['pipe', 'ignore', 'pipe'] });
  if (r.error) return { ok: false, why: `${argv[0]} is not available (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  if (r.status !== 0) return { ok: false, why: `${argv[0]} failed: ${(r.stderr || '').trim().split('\n')[0] || `exit ${r.status}`}` };
  return { ok: true, where: keychain.where };
}

/** A nested call's folder left by a host that died mid-call (kill -9, power loss) is removed by a later call after this. */
const STALE_NESTED_MS = 60 * 60_000;

/**
 * The nested `claude`'s empty working folder, `$ENGRAM_HOME/tmp/engram-nested-XXXXXX`: in the state folder, not the
 * system's temp folder, so a host killed mid-call leaves nothing outside Engram's own folder, and the next call clears
 * what such a host left (older than any call can run).
 */
async function emptyTempDir(env: NodeJS.ProcessEnv): Promise<TempDir> {
  const parent = path.join(engramHome(env), 'tmp');
  await fsp.mkdir(parent, { recursive: true, mode: 0o700 });
  const now = Date.now();
  for (const name of await fsp.readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith('engram-nested-')) continue;
    const at = path.join(parent, name);
    const st = await fsp.stat(at).catch(() => undefined);
    if (st && now - st.mtimeMs > STALE_NESTED_MS) await fsp.rm(at, { recursive: true, force: true }).catch(() => undefined);
  }
  const dir = await fsp.mkdtemp(path.join(parent, 'engram-nested-'));
  // Retried: the CLI's last writes can land while the folder is removed (ENOTEMPTY), which left it behind.
  return { path: dir, remove: () => fsp.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
}

export type CredentialSource = 'subscription login' | 'ANTHROPIC_API_KEY from env' | 'CLAUDE_CODE_OAUTH_TOKEN from env' | 'Claude Code settings' | 'secret store' | 'OPENAI_API_KEY from env' | 'not needed' | 'none';

export interface BackendCredentials {
  backend: BackendName;
  source: CredentialSource;
  /** One line for status and doctor: where the credentials come from, or what to do. */
  detail: string;
  fix?: string;
}

/** A Claude Code login: its credentials file (Linux, Windows), or the account it records (macOS keeps the token in the Keychain). */
function claudeLogin(env: NodeJS.ProcessEnv): string | undefined {
  const dir = claudeDir(env);
  const creds = readJson(path.join(dir, '.credentials.json'));
  if (creds && creds.claudeAiOauth) return path.join(dir, '.credentials.json');
  const state = path.join(env.CLAUDE_CONFIG_DIR ?? homeDir(env), '.claude.json');
  if (readJson(state)?.oauthAccount) return state;
  return undefined;
}

/** What Engram knows of one backend on this host: how to make it, where its credentials come from, whether it can run. */
export interface BackendEntry {
  /** Makes it; `paid` is this entry's own `paid` for the same config and env, handed in by createBackend. */
  create(config: EffectiveConfig, deps: BackendDeps & { paid: boolean }): LlmBackend;
  /** Where its credentials come from, as a host started from `env` would see them; never the secret itself. */
  credentials(config: EffectiveConfig, env: NodeJS.ProcessEnv): Omit<BackendCredentials, 'backend'>;
  /** Whether it can run at all, said without spending a token (`claude auth status` for the CLI). */
  check(config: EffectiveConfig, env: NodeJS.ProcessEnv): { ok: boolean; detail: string };
  /** The ways out when it cannot run, one line each. */
  choices: string[];
  /** What `engram doctor` fetches to see it reachable; absent: nothing on the network to reach. */
  probe?(config: EffectiveConfig, env: NodeJS.ProcessEnv): { url: string; headers: Record<string, string>; fix: string };
  /** Whether its calls cost money per token (the budget's default and the usage summary). */
  paid(config: EffectiveConfig, env: NodeJS.ProcessEnv): boolean;
  /** A program it needs on this machine, missing (doctor fails on it before looking at credentials); absent: none. */
  missing?(config: EffectiveConfig, env: NodeJS.ProcessEnv): { detail: string; fix: string } | undefined;
  /** How doctor names it when all is well, given where its credentials come from (default: `<name>; credentials: …`). */
  doctorDetail?(config: EffectiveConfig, env: NodeJS.ProcessEnv, credentials: string): string;
}

export interface BackendDeps {
  env: NodeJS.ProcessEnv;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

const RULES_CHOICE = '`engram configure backend rules`: offline, no LLM (files only explicit #decision / remember: markers and plain corrections)';
const CLAUDE_CHOICE = 'install Claude Code and log in: `npm install -g @anthropic-ai/claude-code`, then run `claude` and /login (or set `engram configure claude.command <path>`)';
const ANTHROPIC_CHOICE = 'an API key: `export ANTHROPIC_API_KEY=…` and `engram configure backend anthropic` (paid per token; set `engram configure budget.tokens_per_day <n>` for background runs)';

/** An API backend's key: from the environment, else the OS secret store; none is needed where `keyless` says so. */
function keyCredentials(variable: 'ANTHROPIC_API_KEY' | 'OPENAI_API_KEY', env: NodeJS.ProcessEnv, keyless?: string): Omit<BackendCredentials, 'backend'> {
  if (env[variable]?.trim()) return { source: `${variable} from env`, detail: `${variable} from the environment` };
  if (apiKey(variable, env)) return { source: 'secret store', detail: `${variable} from the OS secret store (service "engram")` };
  if (keyless) return { source: 'not needed', detail: keyless };
  const store = process.platform === 'darwin' ? `security add-generic-password -s engram -a ${variable} -w` : `secret-tool store --label engram service engram key ${variable}`;
  return { source: 'none', detail: `${variable === 'ANTHROPIC_API_KEY' ? 'anthropic' : 'openai'}: ${variable} is not set`, fix: `export ${variable}, or store it: ${store}` };
}

/** The claude CLI's own credentials: the environment's key or token, Claude Code's settings, else its subscription login. */
function claudeCredentials(env: NodeJS.ProcessEnv): Omit<BackendCredentials, 'backend'> {
  if (claudeBillsApiKey(env)) return { source: 'ANTHROPIC_API_KEY from env', detail: 'ANTHROPIC_API_KEY from the environment (billed to that API account, not the subscription)' };
  if (env.CLAUDE_CODE_OAUTH_TOKEN?.trim()) return { source: 'CLAUDE_CODE_OAUTH_TOKEN from env', detail: 'CLAUDE_CODE_OAUTH_TOKEN from the environment (subscription token)' };
  const settings = readJson(path.join(claudeDir(env), 'settings.json'));
  const settingsEnv = settings?.env as Record<string, unknown> | undefined;
  if (settings?.apiKeyHelper || settingsEnv?.ANTHROPIC_API_KEY || settingsEnv?.ANTHROPIC_AUTH_TOKEN) {
    return { source: 'Claude Code settings', detail: 'Claude Code settings (apiKeyHelper or env in ~/.claude/settings.json)' };
  }
  const login = claudeLogin(env);
  if (login) return { source: 'subscription login', detail: `Claude Code subscription login (${login})` };
  if (process.platform === 'darwin') return { source: 'subscription login', detail: 'Claude Code login in the macOS Keychain, if you ran /login (not checked)' };
  return { source: 'none', detail: 'claude: not logged in and no ANTHROPIC_API_KEY', fix: 'run `claude` once and log in with /login, or set ANTHROPIC_API_KEY, or `engram configure backend rules`' };
}

/** The claude CLI found and logged in (`claude auth status`; an older CLI without it: found, login unknown). */
function claudeCheck(config: EffectiveConfig, env: NodeJS.ProcessEnv): { ok: boolean; detail: string } {
  const configured = config.get('claude.command');
  const cli = findClaude(configured, env);
  if (!isExecutable(cli)) return { ok: false, detail: `the claude backend runs the Claude Code CLI, and \`${configured}\` is not on PATH (nor in ~/.claude/local or ~/.local/bin)` };
  const r = spawnSync(cli, ['auth', 'status'], { env, encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'] });
  let status: { loggedIn?: boolean; authMethod?: string } | undefined;
  try {
    status = JSON.parse(r.stdout) as typeof status;
  } catch {
    // An older CLI without `auth status`: found, login unknown; its first call says.
  }
  if (status?.loggedIn === false) return { ok: false, detail: `the Claude Code CLI (${cli}) is not logged in` };
  return { ok: true, detail: `claude: ${cli}${status?.authMethod ? ` (logged in, ${status.authMethod})` : ''}` };
}

/** Local servers are free; a remote one (the default URL) is paid. The one rule: the backend is made with it. */
const openaiPaid = (config: EffectiveConfig): boolean => !isLocalUrl(config.get('openai.url'));

/**
 * Every backend, by the name config.json uses (BACKENDS in src/core/config.ts): adding one is its module in
 * src/core/extract/backends/, its name and keys in config.ts, and its entry here.
 */
export const BACKEND_ENTRIES: { [N in BackendName]: BackendEntry } = {
  rules: {
    create: (_config, { paid }) => new RulesBackend({ paid }),
    credentials: () => ({ source: 'not needed', detail: 'none needed (no LLM)' }),
    check: () => ({ ok: true, detail: 'rules: offline, no LLM' }),
    choices: [RULES_CHOICE],
    paid: () => false,
    doctorDetail: () => 'rules (no LLM)',
  },
  claude: {
    create: (config, { env, retry, timeoutMs, paid }) => new ClaudeBackend({
      retry,
      timeoutMs,
      // The child's environment is nestedEnv(env) and nothing else (not whatever process.env holds besides).
      spawn: new NodeSpawn({ baseEnv: {} }),
      command: findClaude(config.get('claude.command'), env),
      model: config.get('claude.model'),
      env: { ...env },
      baseUrl: config.get('claude.base_url') ?? undefined,
      makeTempDir: () => emptyTempDir(env),
      paid,
    }),
    // The nested CLI keeps the user's own credentials. A session's ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN are
    // never passed on (claude.ts nestedEnv).
    credentials: (_config, env) => claudeCredentials(env),
    check: claudeCheck,
    choices: [CLAUDE_CHOICE, RULES_CHOICE, ANTHROPIC_CHOICE],
    paid: (_config, env) => claudeBillsApiKey(env),
    missing: (config, env) => {
      const exe = findClaude(config.get('claude.command'), env);
      if (exe.includes(path.sep) && fs.existsSync(exe)) return undefined;
      return { detail: `the claude CLI (${exe}) is not on PATH`, fix: 'install Claude Code, set `engram configure claude.command <path>`, or `engram configure backend rules`' };
    },
    doctorDetail: (config, env, credentials) => `claude CLI at ${findClaude(config.get('claude.command'), env)}; credentials: ${credentials}`,
  },
  anthropic: {
    create: (config, { env, retry, timeoutMs, paid }) => new AnthropicBackend({ retry, timeoutMs, apiKey: apiKey('ANTHROPIC_API_KEY', env) ?? '', model: config.get('anthropic.model'), baseUrl: config.get('anthropic.url'), stream: env.ENGRAM_STREAM === '1', paid }),
    credentials: (_config, env) => keyCredentials('ANTHROPIC_API_KEY', env),
    check: (_config, env) => (apiKey('ANTHROPIC_API_KEY', env) ? { ok: true, detail: 'anthropic: ANTHROPIC_API_KEY is set' } : { ok: false, detail: 'the anthropic backend needs ANTHROPIC_API_KEY, and it is not set' }),
    choices: ['an API key: `export ANTHROPIC_API_KEY=…` (or store it under service "engram" in the OS secret store)', RULES_CHOICE, CLAUDE_CHOICE],
    probe: (config) => ({ url: String(config.get('anthropic.url')), headers: {}, fix: 'check the network or anthropic.url' }),
    paid: () => true,
  },
  ollama: {
    create: (config, { env, retry, timeoutMs, paid }) => new OllamaBackend({ retry, timeoutMs, model: config.get('ollama.model'), baseUrl: config.get('ollama.url'), stream: env.ENGRAM_STREAM === '1', paid }),
    credentials: (config) => ({ source: 'not needed', detail: `none needed (local server ${config.get('ollama.url')})` }),
    check: (config) => ({ ok: true, detail: `ollama at ${config.get('ollama.url')} (model ${config.get('ollama.model')})` }),
    choices: [RULES_CHOICE],
    probe: (config) => ({ url: `${String(config.get('ollama.url'))}/api/tags`, headers: {}, fix: 'start Ollama (`ollama serve`) or fix ollama.url' }),
    paid: () => false,
  },
  openai: {
    create: (config, { env, retry, timeoutMs, paid }) => new OpenAiBackend({ retry, timeoutMs, apiKey: apiKey('OPENAI_API_KEY', env), model: config.get('openai.model'), baseUrl: config.get('openai.url'), stream: env.ENGRAM_STREAM === '1', paid }),
    credentials: (config, env) => keyCredentials('OPENAI_API_KEY', env, isLocalUrl(config.get('openai.url')) ? `none needed (local server ${config.get('openai.url')})` : undefined),
    check: (config, env) => {
      const url = config.get('openai.url');
      return isLocalUrl(url) || apiKey('OPENAI_API_KEY', env) ? { ok: true, detail: `openai at ${url}` } : { ok: false, detail: `the openai backend at ${url} needs OPENAI_API_KEY, and it is not set` };
    },
    choices: ['an API key: `export OPENAI_API_KEY=…`, or point `openai.url` at a local OpenAI-compatible server', RULES_CHOICE, CLAUDE_CHOICE],
    probe: (config, env) => {
      const headers: Record<string, string> = env.OPENAI_API_KEY ? { authorization: `Bearer ${env.OPENAI_API_KEY}` } : {};
      return { url: `${String(config.get('openai.url'))}/models`, headers, fix: 'check the network or openai.url' };
    },
    paid: openaiPaid,
  },
};

/** The entry of a backend name, or a usage error that lists the names (a name from an old config.json, say). */
export function backendEntry(name: BackendName): BackendEntry {
  const entry = Object.prototype.hasOwnProperty.call(BACKEND_ENTRIES, name) ? BACKEND_ENTRIES[name] : undefined;
  if (!entry) throw new EngramError('usage', `unknown backend "${String(name)}"`, `choose ${BACKENDS.slice(0, -1).join(', ')} or ${BACKENDS.at(-1)}`);
  return entry;
}

/** Where the backend's credentials come from, for status and doctor. Never returns a secret, only its source. */
export function backendCredentials(name: BackendName, config: EffectiveConfig, env: NodeJS.ProcessEnv): BackendCredentials {
  if (!Object.prototype.hasOwnProperty.call(BACKEND_ENTRIES, name)) {
    return { backend: name, source: 'none', detail: `unknown backend "${String(name)}"`, fix: `choose ${BACKENDS.slice(0, -1).join(', ')} or ${BACKENDS.at(-1)}` };
  }
  return { backend: name, ...BACKEND_ENTRIES[name].credentials(config, env) };
}

/** The backend of that name, told by its entry whether its calls cost money (the one place that decides it). */
export function createBackend(name: BackendName, config: EffectiveConfig, deps: BackendDeps): LlmBackend {
  const entry = backendEntry(name);
  return entry.create(config, { ...deps, paid: entry.paid(config, deps.env) });
}

/** `engram doctor`'s word on the configured backend: its program, its credentials, its server reachable. */
export async function diagnoseBackend(config: EffectiveConfig, env: NodeJS.ProcessEnv): Promise<{ status: 'ok' | 'fail'; detail: string; fix?: string }> {
  const backend = config.get('backend');
  const entry = backendEntry(backend);
  const missing = entry.missing?.(config, env);
  if (missing) return { status: 'fail', ...missing };
  // Where the backend's credentials come from (never the secret itself).
  const cred = backendCredentials(backend, config, env);
  if (cred.source === 'none') return { status: 'fail', detail: cred.detail, fix: cred.fix };
  const probe = entry.probe?.(config, env);
  if (!probe) return { status: 'ok', detail: entry.doctorDetail?.(config, env, cred.detail) ?? `${backend}; credentials: ${cred.detail}` };
  const { url, headers, fix } = probe;
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000), headers });
    return { status: 'ok', detail: `${backend} at ${url} reachable; credentials: ${cred.detail}` };
  } catch (e) {
    return { status: 'fail', detail: `${backend} at ${url} unreachable (${(e as Error).message})`, fix };
  }
}
