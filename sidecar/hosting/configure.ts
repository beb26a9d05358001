// `configure` from an agent (MCP): only core's AGENT_CONFIG_KEYS, by the CLI's names and with the CLI's ranges.
import { AGENT_CONFIG_KEYS, describeAgentConfigKeys, keySpec, type ConfigKey } from '../../src/core/config.js';
import { EngramError } from '../../src/core/errors.js';
import { saveConfigKey } from './config-file.js';
import { hostFacts } from './facts.js';

export async function setSafeKey(name: string, value: unknown, env: NodeJS.ProcessEnv): Promise<{ key: string; value: unknown }> {
  if (!(AGENT_CONFIG_KEYS as readonly string[]).includes(name)) {
    throw new EngramError('refused', `"${name}" cannot be changed from here`, `allowed: ${describeAgentConfigKeys()}; other keys only with \`engram configure\` in a terminal`);
  }
  const r = keySpec(name as ConfigKey).check(value);
  if (!r.ok) throw new EngramError('usage', `${name} must be ${r.error}, got ${JSON.stringify(value)}`);
  await saveConfigKey(hostFacts(env), name, r.value);
  return { key: name, value: r.value };
}
