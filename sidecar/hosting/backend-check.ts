// Whether the configured extraction backend can run at all, said before any work is queued (`engram setup`,
// `engram backfill`): for `claude`, the CLI on PATH and logged in; for the APIs, a key. With the choices to fix it.
import type { BackendName, EffectiveConfig } from '../../src/core/config.js';
import { BACKEND_ENTRIES } from './backends.js';

export interface BackendCheck {
  backend: BackendName;
  ok: boolean;
  /** What was found (or what is missing), one line. */
  detail: string;
  /** The ways out, one line each, when not ok. */
  choices: string[];
}

/** Checks the configured backend without spending a token (`claude auth status` for the CLI). */
export function checkBackend(config: EffectiveConfig, env: NodeJS.ProcessEnv, backend: BackendName = config.get('backend')): BackendCheck {
  const entry = Object.prototype.hasOwnProperty.call(BACKEND_ENTRIES, backend) ? BACKEND_ENTRIES[backend] : undefined;
  if (!entry) return { backend, ok: false, detail: `unknown backend ${String(backend)}`, choices: BACKEND_ENTRIES.rules.choices };
  const { ok, detail } = entry.check(config, env);
  return { backend, ok, detail, choices: ok ? [] : entry.choices };
}

/** The check as lines for a person: what is wrong, then the numbered choices. */
export function describeBackendProblem(check: BackendCheck): string[] {
  return [`The ${check.backend} backend cannot run: ${check.detail}.`, 'Choose one:', ...check.choices.map((c, i) => `  ${i + 1}. ${c}`)];
}
