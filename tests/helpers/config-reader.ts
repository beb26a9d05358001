// What an entry point hands down in production (sidecar/hosting/config-file.ts ConfigReader): config.json under the
// environment's $ENGRAM_HOME, read at each call, for tests that open a host or run a command's parts directly.
import { loadConfig, type ConfigReader, type LoadedConfig } from '../../sidecar/hosting/config-file.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';

export function configFileOf(env: NodeJS.ProcessEnv): () => LoadedConfig {
  const facts = hostFacts(env);
  return () => loadConfig(facts);
}

export function configOf(env: NodeJS.ProcessEnv): ConfigReader {
  const file = configFileOf(env);
  return () => file().config;
}
