// Creates the configured LLM backend on the Node host: API keys from the environment (never written anywhere),
// the `claude` CLI found on PATH or in its usual install folders, a fresh empty directory per nested call.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EffectiveConfig, BackendName } from '../../src/core/config.js';
import { AnthropicBackend } from '../../src/core/extract/backends/anthropic.js';
import { ClaudeBackend, type TempDir } from '../../src/core/extract/backends/claude.js';
import { OllamaBackend } from '../../src/core/extract/backends/ollama.js';
import { OpenAiBackend } from '../../src/core/extract/backends/openai.js';
import { RulesBackend } from '../../src/core/extract/backends/rules.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import type { RetryPolicy } from '../../src/core/extract/backends/retry.js';
import { EngramError } from '../../src/core/errors.js';
import { NodeSpawn } from './node-spawn.js';

function isExecutable(file: string): boolean {
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
  const home = env.HOME || os.homedir();
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

async function emptyTempDir(): Promise<TempDir> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'engram-nested-'));
  return { path: dir, remove: () => fsp.rm(dir, { recursive: true, force: true }) };
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
        spawn: new NodeSpawn(),
        command: findClaude(config.get('claude.command'), env),
        model: config.get('claude.model'),
        env: { ...env },
        makeTempDir: emptyTempDir,
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
