// `configure` from an agent (MCP) can change only these keys: nothing that points at a backend, a path, a key
// or a budget, which a prompt injection could abuse.
import { EngramError } from '../../src/core/errors.js';
import { saveConfigKey } from './config-file.js';
import { hostFacts } from './facts.js';

type Rule = { kind: 'boolean' } | { kind: 'int'; min: number; max: number };

/** Safe keys, by the name agents see, mapped to core's configuration keys. */
export const SAFE_KEYS: Record<string, Rule & { key: string }> = {
  inject: { kind: 'boolean', key: 'hooks.inject' },
  prompt_max_items: { kind: 'int', min: 1, max: 10, key: 'recall.prompt_items' },
  prompt_max_chars: { kind: 'int', min: 200, max: 4000, key: 'recall.prompt_chars' },
  session_start_max_chars: { kind: 'int', min: 200, max: 8000, key: 'recall.session_start_chars' },
  stop_min_new_turns: { kind: 'int', min: 1, max: 1000, key: 'hooks.stop_min_new_turns' },
  stop_min_new_bytes: { kind: 'int', min: 1024, max: 100_000_000, key: 'hooks.stop_min_new_bytes' },
  idle_minutes: { kind: 'int', min: 1, max: 1440, key: 'idle_timeout_minutes' },
};

export async function setSafeKey(name: string, value: unknown, env: NodeJS.ProcessEnv): Promise<{ key: string; value: unknown }> {
  const rule = SAFE_KEYS[name];
  if (!rule) {
    throw new EngramError('refused', `"${name}" cannot be changed from here`, `allowed: ${Object.keys(SAFE_KEYS).join(', ')}; other keys only with \`engram configure\` in a terminal`);
  }
  if (rule.kind === 'boolean' && typeof value !== 'boolean') throw new EngramError('usage', `${name} takes true or false`);
  if (rule.kind === 'int' && (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max)) {
    throw new EngramError('usage', `${name} takes a whole number from ${rule.min} to ${rule.max}`);
  }
  await saveConfigKey(hostFacts(env), rule.key, value);
  return { key: name, value };
}
