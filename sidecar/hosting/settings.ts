// The config values clients need (vault, hook deadlines, injection budgets), read through core's config rules,
// without loading the engine. Vault and project resolution are the foundation's (sidecar/hosting/resolve.ts).
import { effectiveConfig, type EffectiveConfig } from '../../src/core/config.js';
import { findVault, findLocalSettings, projectFor } from './resolve.js';
import { loadConfig, readConfigData, type ConfigReader } from './config-file.js';
import { hostFacts } from './facts.js';
import { configPath } from './paths.js';

export interface ClientSettings {
  vault_path?: string;
  session_start_deadline_ms: number;
  prompt_deadline_ms: number;
  session_start_max_chars: number;
  prompt_max_chars: number;
  prompt_max_items: number;
  session_max_chars: number;
  idle_minutes: number;
  /** A Stop re-queues a session only when it grew by this many records ... */
  stop_min_new_turns: number;
  /** ... or this many bytes since its last extraction. */
  stop_min_new_bytes: number;
  inject: boolean;
}

/** config.json's data (while it is broken, its last good copy's), or nothing when neither can be read. */
function readRawConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  try {
    return readConfigData(configPath(env)).data ?? {};
  } catch {
    return {};
  }
}

/** The settings clients and hosts need, from the configuration an entry point read. */
export function settingsOf(cfg: EffectiveConfig): ClientSettings {
  return {
    vault_path: cfg.get('vault_path') ?? undefined,
    session_start_deadline_ms: cfg.get('hooks.session_start_deadline_ms'),
    prompt_deadline_ms: cfg.get('hooks.prompt_deadline_ms'),
    session_start_max_chars: cfg.get('recall.session_start_chars'),
    prompt_max_chars: cfg.get('recall.prompt_chars'),
    prompt_max_items: cfg.get('recall.prompt_items'),
    session_max_chars: cfg.get('recall.session_chars'),
    idle_minutes: cfg.get('idle_timeout_minutes'),
    stop_min_new_turns: cfg.get('hooks.stop_min_new_turns'),
    stop_min_new_bytes: cfg.get('hooks.stop_min_new_bytes'),
    inject: cfg.get('hooks.inject'),
  };
}

/**
 * The hook's own read of config.json (sidecar/client/hook.ts, never a broken file's error: a hook always exits 0).
 * It stays here, on the entry points' list, until the hook takes its configuration from its entry as the rest do.
 */
export function clientSettings(env: NodeJS.ProcessEnv): ClientSettings {
  return settingsOf(effectiveConfig(readRawConfig(env), env));
}

export interface ResolvedVault {
  vault: string;
  source: string;
}

/**
 * docs/configuration.md, which vault: --vault, ENGRAM_VAULT, the nearest .claude/engram.local.json, config.json's
 * vault_path (from `config`; the hook, which hands none, reads it here, as clientSettings does).
 */
export function resolveVault(opts: { vault?: string; cwd: string; env: NodeJS.ProcessEnv; config?: ConfigReader }): ResolvedVault | undefined {
  const found = findVault(hostFacts(opts.env), opts.cwd, opts.vault, opts.config ?? (() => loadConfig(hostFacts(opts.env)).config));
  return found ? { vault: found.path, source: found.origin } : undefined;
}

/** docs/configuration.md, which project. */
export function resolveProject(cwd: string): string {
  return projectFor(cwd).name;
}

export function captureEnabled(cwd: string): boolean {
  return findLocalSettings(cwd)?.capture !== false;
}
