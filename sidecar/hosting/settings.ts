// The config values clients need (vault, hook deadlines, injection budgets), read through core's config rules,
// without loading the engine. Vault and project resolution are the foundation's (sidecar/hosting/resolve.ts).
import { effectiveConfig, type EffectiveConfig } from '../../src/core/config.js';
import { findVault, findLocalSettings, projectFor } from './resolve.js';
import type { ConfigReader } from './config-file.js';
import { hostFacts } from './facts.js';

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
 * The hook's and the plugin's settings from the configuration their entry read, never a broken file's error (a hook
 * always exits 0): while config.json can be read neither whole nor from its last good copy, the defaults and `env`.
 */
export function clientSettings(config: ConfigReader, env: NodeJS.ProcessEnv): ClientSettings {
  try {
    return settingsOf(config());
  } catch {
    return settingsOf(effectiveConfig(null, env));
  }
}

export interface ResolvedVault {
  vault: string;
  source: string;
}

/**
 * docs/configuration.md, which vault: --vault, ENGRAM_VAULT, the nearest .claude/engram.local.json, config.json's
 * vault_path (from `config`, read by the caller's entry point and asked only when the others say nothing).
 */
export function resolveVault(opts: { vault?: string; cwd: string; env: NodeJS.ProcessEnv; config: ConfigReader }): ResolvedVault | undefined {
  const found = findVault(hostFacts(opts.env), opts.cwd, opts.vault, opts.config);
  return found ? { vault: found.path, source: found.origin } : undefined;
}

/** docs/configuration.md, which project. */
export function resolveProject(cwd: string): string {
  return projectFor(cwd).name;
}

export function captureEnabled(cwd: string): boolean {
  return findLocalSettings(cwd)?.capture !== false;
}
