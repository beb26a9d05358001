// What the settings tab reads and writes, on Node: Engram's config.json (the CLI's keys, checked by core's rules), the
// embedding model's place, the hook and MCP registrations, and running the `engram` CLI for install and model pull.
import { execFile } from 'node:child_process';
import { isConfigKey } from '../../core/config';
import { EngramError } from '../../core/errors';
import { engramHome } from '../../core/state';
import { liveConfig, saveConfigKey, type ConfigReader } from '../../../sidecar/hosting/config-file';
import { hostFacts } from '../../../sidecar/hosting/facts';
import { configuredModel, HUB } from '../../../sidecar/hosting/embedder';
import { remainingRegistrations } from '../../../sidecar/hosting/install-facts';
import type { EngineConfigAccess, EngramSettings } from '../settings';
import { cliEnv, findEngramCli, findNode } from './find-cli';

/**
 * The plugin's one reader of config.json, an entry point's (sidecar/hosting/config-file.ts ConfigReader): the settings
 * tab and the plugin's host read it at each use, so an edit in the tab or by `engram configure` applies at once.
 */
export function pluginConfig(env: NodeJS.ProcessEnv): ConfigReader {
  return liveConfig(hostFacts(env));
}

export function nodeConfigAccess(env: NodeJS.ProcessEnv, settings: Pick<EngramSettings, 'nodePath' | 'cliPath' | 'engramHome'>): EngineConfigAccess {
  const facts = hostFacts(env);
  const read = pluginConfig(env);
  let cliProblem: string | undefined;
  const cli = findEngramCli(settings, env);
  if (!cli.ok) cliProblem = cli.problem;
  return {
    home: engramHome(facts),
    get: (key) => (isConfigKey(key) ? read().get(key) : undefined),
    // config.json's writer checks the key and its value (core's rules) before anything is written.
    async set(key, value) {
      await saveConfigKey(facts, key, value);
    },
    model() {
      const c = read();
      const loc = configuredModel(c, engramHome(facts));
      return { id: loc.id, present: loc.dir !== null, where: loc.dir ?? loc.downloadDir, source: `${HUB}/${loc.id}` };
    },
    registrations: () => remainingRegistrations(env),
    cliProblem: () => cliProblem,
    async runCli(args) {
      const node = await findNode(settings.nodePath, env);
      if (!node.ok) throw new EngramError('not-found', node.problem);
      if (!cli.ok) throw new EngramError('not-found', cli.problem);
      return new Promise((resolve) => {
        execFile(node.path, [cli.path, ...args], { env: cliEnv(settings, env), timeout: 10 * 60_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, output: `${stdout}${stderr}` });
        });
      });
    },
  };
}
