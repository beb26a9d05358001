// Reads and writes $ENGRAM_HOME/config.json; the rules (keys, validation, sources) live in src/core/config.ts.
import fs from 'node:fs';
import { effectiveConfig, parseConfigFile, serializeConfigFile, setConfigValue, unsetConfigValue, type EffectiveConfig } from '../../src/core/config.js';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import { engramHome, userState, type HostFacts } from '../../src/core/state.js';
import { atomicWriteFile } from './atomic-write.js';

export interface LoadedConfig {
  file: string;
  /** The file's data (null when it does not exist). */
  data: Record<string, unknown> | null;
  config: EffectiveConfig;
}

export function configFilePath(facts: HostFacts): string {
  return userState(engramHome(facts), facts.platform).configFile;
}

export function readConfigFile(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EngramError('io', `cannot read ${file}: ${errorMessage(e)}`);
  }
  return parseConfigFile(text, file);
}

export function loadConfig(facts: HostFacts): LoadedConfig {
  const file = configFilePath(facts);
  const data = readConfigFile(file);
  return { file, data, config: effectiveConfig(data, facts.env) };
}

/** Sets (value) or removes (null) one key in config.json, atomically; returns the new effective configuration. */
export async function saveConfigKey(facts: HostFacts, key: string, value: unknown | null): Promise<LoadedConfig> {
  const file = configFilePath(facts);
  const data = readConfigFile(file);
  const next = value === null ? unsetConfigValue(data, key) : setConfigValue(data, key, value);
  await atomicWriteFile(file, serializeConfigFile(next));
  return { file, data: next, config: effectiveConfig(next, facts.env) };
}
