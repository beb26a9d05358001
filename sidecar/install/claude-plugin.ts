// Is Engram installed as a Claude Code plugin (`/plugin install`)? Then the plugin registers the hooks and the MCP
// server, and `engram install` must not register them a second time: one Engram per Claude Code.
import path from 'node:path';
import { claudeDir, readJson, type Json } from '../hosting/paths.js';

export interface ClaudePlugin {
  /** `engram@<marketplace>` */
  id: string;
  enabled: boolean;
  version?: string;
  installPath?: string;
}

function isEngramId(id: string): boolean {
  return /^engram@/.test(id);
}

/** Engram's plugin as Claude Code sees it for a session in `cwd` (installed_plugins.json, enabledPlugins). */
export function claudePlugin(env: NodeJS.ProcessEnv, cwd: string): ClaudePlugin | undefined {
  const dir = claudeDir(env);
  const installed = new Map<string, { version?: string; installPath?: string }>();
  const plugins = readJson(path.join(dir, 'plugins', 'installed_plugins.json'))?.plugins;
  if (plugins && typeof plugins === 'object') {
    for (const [id, v] of Object.entries(plugins as Json)) {
      if (!isEngramId(id)) continue;
      const entry = (Array.isArray(v) ? v[0] : v) as Json | undefined;
      installed.set(id, { version: typeof entry?.version === 'string' ? entry.version : undefined, installPath: typeof entry?.installPath === 'string' ? entry.installPath : undefined });
    }
  }
  // enabledPlugins: the project's local file wins over the project's, which wins over the user's.
  const enabled = new Map<string, boolean>();
  for (const file of [path.join(dir, 'settings.json'), path.join(cwd, '.claude', 'settings.json'), path.join(cwd, '.claude', 'settings.local.json')]) {
    const ep = readJson(file)?.enabledPlugins;
    if (!ep || typeof ep !== 'object') continue;
    for (const [id, on] of Object.entries(ep as Json)) if (isEngramId(id) && typeof on === 'boolean') enabled.set(id, on);
  }
  const ids = [...new Set([...installed.keys(), ...enabled.keys()])];
  const found = ids.map((id) => ({ id, enabled: enabled.get(id) ?? installed.has(id), ...installed.get(id) }));
  return found.find((p) => p.enabled) ?? found[0];
}

/** The message for a double registration, with the two ways out. */
export function switchHint(p: ClaudePlugin): string {
  return `keep the plugin (nothing to do; \`engram uninstall\` removes an earlier \`engram install\`), or switch to \`engram install\`: run \`claude plugin uninstall ${p.id}\` (or /plugin in Claude Code) first`;
}
