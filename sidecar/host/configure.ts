// `configure` from an agent (MCP) can change only these keys: nothing that points at a backend, a path, a key
// or a budget, which a prompt injection could abuse.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { configPath } from '../client/paths.js';
import { readRawConfig } from '../client/settings.js';

type Rule = { kind: 'boolean' } | { kind: 'int'; min: number; max: number };

export const SAFE_KEYS: Record<string, Rule & { description: string }> = {
  inject: { kind: 'boolean', description: 'inject relevant notes into sessions automatically' },
  prompt_max_items: { kind: 'int', min: 1, max: 10, description: 'notes injected per prompt at most' },
  prompt_max_chars: { kind: 'int', min: 200, max: 4000, description: 'characters injected per prompt at most' },
  session_start_max_chars: { kind: 'int', min: 200, max: 8000, description: 'characters injected at session start at most' },
  stop_min_new_turns: { kind: 'int', min: 1, max: 1000, description: 'records a session must grow by before Stop re-extracts it' },
  stop_min_new_bytes: { kind: 'int', min: 1024, max: 100_000_000, description: 'bytes a session must grow by before Stop re-extracts it' },
  idle_minutes: { kind: 'int', min: 1, max: 1440, description: 'minutes of no requests before the daemon exits' },
};

export function setSafeKey(key: string, value: unknown, env: NodeJS.ProcessEnv): { key: string; value: unknown; previous: unknown } {
  const rule = SAFE_KEYS[key];
  if (!rule) {
    throw new EngramError('refused', `"${key}" cannot be changed from here`, `allowed: ${Object.keys(SAFE_KEYS).join(', ')}; other keys only with \`engram configure\` in a terminal`);
  }
  if (rule.kind === 'boolean' && typeof value !== 'boolean') throw new EngramError('usage', `${key} takes true or false`);
  if (rule.kind === 'int' && (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max)) {
    throw new EngramError('usage', `${key} takes a whole number from ${rule.min} to ${rule.max}`);
  }
  const cfg = readRawConfig(env);
  const previous = cfg[key];
  cfg[key] = value;
  const file = configPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { key, value, previous };
}
