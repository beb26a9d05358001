// Creates the configured LLM backend on the Node host: API keys from the environment (never written anywhere),
// the `claude` CLI found on PATH or in its usual install folders, a fresh empty directory per nested call; and says
// where each backend's credentials come from (status, doctor).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EffectiveConfig, BackendName } from '../../src/core/config.js';
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
 * An API key: the environment variable, else the OS secret store (macOS Keychain via `security`, Linux libsecret via
 * `secret-tool`), stored under service "engram" with the variable's name as account/key. Never logged or written.
 */
export function apiKey(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const fromEnv = env[name]?.trim();
  if (fromEnv) return fromEnv;
  const lookup: [string, string[]] | undefined =
    process.platform === 'darwin'
      ? ['security', ['find-generic-password', '-s', 'engram', '-a', name, '-w']]
      : process.platform === 'linux'
        ? ['secret-tool', ['lookup', 'service', 'engram', 'key', name]]
        : undefined;
  if (!lookup) return undefined;
  const r = spawnSync(lookup[0], lookup[1], { env, encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
  const key = r.status === 0 ? r.stdout.trim() : '';
  return key || undefined;
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

/**
 * Where the configured backend's credentials come from, as a host started from `env` would see them. For `claude`
 * the nested CLI keeps the user's own: ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN from the environment (these
 * win over a login in print mode), an apiKeyHelper or key in Claude Code's settings, else its subscription login.
 * A session's ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN are never passed on (claude.ts nestedEnv).
 * Never returns a secret, only its source.
 */
export function backendCredentials(name: BackendName, config: EffectiveConfig, env: NodeJS.ProcessEnv): BackendCredentials {
  const none = (detail: string, fix: string): BackendCredentials => ({ backend: name, source: 'none', detail, fix });
  switch (name) {
    case 'rules':
      return { backend: name, source: 'not needed', detail: 'none needed (no LLM)' };
    case 'ollama':
      return { backend: name, source: 'not needed', detail: `none needed (local server ${config.get('ollama.url')})` };
    case 'claude': {
      if (claudeBillsApiKey(env)) return { backend: name, source: 'ANTHROPIC_API_KEY from env', detail: 'ANTHROPIC_API_KEY from the environment (billed to that API account, not the subscription)' };
      if (env.CLAUDE_CODE_OAUTH_TOKEN?.trim()) return { backend: name, source: 'CLAUDE_CODE_OAUTH_TOKEN from env', detail: 'CLAUDE_CODE_OAUTH_TOKEN from the environment (subscription token)' };
      const settings = readJson(path.join(claudeDir(env), 'settings.json'));
      const settingsEnv = settings?.env as Record<string, unknown> | undefined;
      if (settings?.apiKeyHelper || settingsEnv?.ANTHROPIC_API_KEY || settingsEnv?.ANTHROPIC_AUTH_TOKEN) {
        return { backend: name, source: 'Claude Code settings', detail: 'Claude Code settings (apiKeyHelper or env in ~/.claude/settings.json)' };
      }
      const login = claudeLogin(env);
      if (login) return { backend: name, source: 'subscription login', detail: `Claude Code subscription login (${login})` };
      if (process.platform === 'darwin') return { backend: name, source: 'subscription login', detail: 'Claude Code login in the macOS Keychain, if you ran /login (not checked)' };
      return none('claude: not logged in and no ANTHROPIC_API_KEY', 'run `claude` once and log in with /login, or set ANTHROPIC_API_KEY, or `engram configure backend rules`');
    }
    case 'anthropic':
    case 'openai': {
      const variable = name === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
      if (env[variable]?.trim()) return { backend: name, source: name === 'anthropic' ? 'ANTHROPIC_API_KEY from env' : 'OPENAI_API_KEY from env', detail: `${variable} from the environment` };
      if (apiKey(variable, env)) return { backend: name, source: 'secret store', detail: `${variable} from the OS secret store (service "engram")` };
      if (name === 'openai' && isLocalUrl(config.get('openai.url'))) return { backend: name, source: 'not needed', detail: `none needed (local server ${config.get('openai.url')})` };
      return none(`${name}: ${variable} is not set`, `export ${variable}, or store it: ${process.platform === 'darwin' ? `security add-generic-password -s engram -a ${variable} -w` : `secret-tool store --label engram service engram key ${variable}`}`);
    }
    default:
      return none(`unknown backend "${String(name)}"`, 'choose claude, anthropic, ollama, openai or rules');
  }
}

export interface BackendDeps {
  env: NodeJS.ProcessEnv;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

export function createBackend(name: BackendName, config: EffectiveConfig, deps: BackendDeps): LlmBackend {
  const env = deps.env;
  const common = { retry: deps.retry, timeoutMs: deps.timeoutMs };
  switch (name) {
    case 'rules':
      return new RulesBackend();
    case 'claude':
      return new ClaudeBackend({
        ...common,
        // The child's environment is nestedEnv(env) and nothing else (not whatever process.env holds besides).
        spawn: new NodeSpawn({ baseEnv: {} }),
        command: findClaude(config.get('claude.command'), env),
        model: config.get('claude.model'),
        env: { ...env },
        baseUrl: config.get('claude.base_url') ?? undefined,
        makeTempDir: () => emptyTempDir(env),
      });
    case 'anthropic':
      return new AnthropicBackend({ ...common, apiKey: apiKey('ANTHROPIC_API_KEY', env) ?? '', model: config.get('anthropic.model'), baseUrl: config.get('anthropic.url'), stream: env.ENGRAM_STREAM === '1' });
    case 'ollama':
      return new OllamaBackend({ ...common, model: config.get('ollama.model'), baseUrl: config.get('ollama.url'), stream: env.ENGRAM_STREAM === '1' });
    case 'openai':
      return new OpenAiBackend({ ...common, apiKey: apiKey('OPENAI_API_KEY', env), model: config.get('openai.model'), baseUrl: config.get('openai.url'), stream: env.ENGRAM_STREAM === '1' });
    default:
      throw new EngramError('usage', `unknown backend "${String(name)}"`, 'choose claude, anthropic, ollama, openai or rules');
  }
}
