// The config values clients need (vault, hook deadlines, injection budgets), read through core's config rules,
// without loading the engine. Vault and project resolution are the foundation's (sidecar/host/resolve.ts).
import { effectiveConfig, type EffectiveConfig } from '../../src/core/config.js';
import { findVault, findLocalSettings, projectFor } from '../host/resolve.js';
import { readConfigFile } from '../host/config-file.js';
import { hostFacts } from '../host/facts.js';
import { configPath } from './paths.js';

export interface ClientSettings {
  vault_path?: string;
  session_start_deadline_ms: number;
  prompt_deadline_ms: number;
  session_start_max_chars: number;
  prompt_max_chars: number;
  prompt_max_items: number;
  idle_minutes: number;
  /** A Stop re-queues a session only when it grew by this many records ... */
  stop_min_new_turns: number;
  /** ... or this many bytes since its last extraction. */
  stop_min_new_bytes: number;
  inject: boolean;
}

/** Hook keys that are not (yet) in core's CONFIG_KEYS table; read from config.json's `hooks` object. */
export const EXTRA_DEFAULTS = { stop_min_new_turns: 6, stop_min_new_bytes: 16_384, inject: true };

export function readRawConfig(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  try {
    return readConfigFile(configPath(env)) ?? {};
  } catch {
    return {};
  }
}

function loadEffective(env: NodeJS.ProcessEnv): { cfg: EffectiveConfig; raw: Record<string, unknown> } {
  const raw = readRawConfig(env);
  return { cfg: effectiveConfig(raw, env), raw };
}

export function clientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const { cfg, raw } = loadEffective(env);
  const hooks = (typeof raw.hooks === 'object' && raw.hooks !== null ? raw.hooks : {}) as Record<string, unknown>;
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    vault_path: cfg.get('vault_path') ?? undefined,
    session_start_deadline_ms: cfg.get('hooks.session_start_deadline_ms'),
    prompt_deadline_ms: cfg.get('hooks.prompt_deadline_ms'),
    session_start_max_chars: cfg.get('recall.session_start_chars'),
    prompt_max_chars: cfg.get('recall.prompt_chars'),
    prompt_max_items: cfg.get('recall.prompt_items'),
    idle_minutes: cfg.get('idle_timeout_minutes'),
    stop_min_new_turns: num(hooks.stop_min_new_turns, EXTRA_DEFAULTS.stop_min_new_turns),
    stop_min_new_bytes: num(hooks.stop_min_new_bytes, EXTRA_DEFAULTS.stop_min_new_bytes),
    inject: typeof hooks.inject === 'boolean' ? hooks.inject : EXTRA_DEFAULTS.inject,
  };
}

export interface ResolvedVault {
  vault: string;
  source: string;
}

/** DESIGN "Which vault": --vault, ENGRAM_VAULT, the nearest .claude/engram.local.json, config.json's vault_path. */
export function resolveVault(opts: { vault?: string; cwd: string; env?: NodeJS.ProcessEnv }): ResolvedVault | undefined {
  const found = findVault(hostFacts(opts.env ?? process.env), opts.cwd, opts.vault);
  return found ? { vault: found.path, source: found.origin } : undefined;
}

/** DESIGN "Which project". */
export function resolveProject(cwd: string): string {
  return projectFor(cwd).name;
}

export function captureEnabled(cwd: string): boolean {
  return findLocalSettings(cwd)?.capture !== false;
}
