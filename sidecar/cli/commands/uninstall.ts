// `engram uninstall [--purge]`: takes out exactly what install and setup added (hooks, MCP, the shim, the Obsidian
// plugin setup put into a vault); --purge also stops hosts and deletes $ENGRAM_HOME.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandDefinition } from '../types.js';
import { uninstall, targets } from '../../install/installer.js';
import { remainingRegistrations } from '../../hosting/install-facts.js';
import { engramHome, shimPath } from '../../hosting/paths.js';
import { lockIsLive, readLock } from '../../hosting/election.js';
import { parseAgent, parseScope, printReports } from './install.js';
import { unlinkFromPath } from '../../install/bin-link.js';
import { uninstallPlugins, type PluginRemoval } from '../../install/obsidian-plugin.js';

function pluginLine(r: PluginRemoval): string {
  // Paths inside the vault, shown from the vault: the line names the vault once.
  const what = r.removed.length ? `: ${r.removed.map((p) => (p.startsWith(r.vault + path.sep) ? path.relative(r.vault, p) : p)).join(', ')}` : '';
  if (r.status === 'removed' || r.status === 'would remove') return `Obsidian plugin in ${r.vault}: ${r.status}${what}`;
  if (r.status === 'absent') return `Obsidian plugin in ${r.vault}: absent (already taken out)`;
  return `Obsidian plugin in ${r.vault}: ${r.status === 'kept' ? 'kept' : 'left untouched'}`;
}

async function stopAllHosts(home: string): Promise<number> {
  const vaults = path.join(home, 'vaults');
  let n = 0;
  for (const key of fs.existsSync(vaults) ? fs.readdirSync(vaults) : []) {
    const lock = readLock(path.join(vaults, key, 'host.lock'));
    if (lock && lockIsLive(lock) && lock.host === 'daemon') {
      try {
        process.kill(lock.pid, 'SIGTERM');
        n++;
      } catch {
        // already gone
      }
      for (let i = 0; i < 100 && lockIsLive(readLock(path.join(vaults, key, 'host.lock'))); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  return n;
}

export const command: CommandDefinition = {
  usage: 'uninstall [--scope user|project] [--agent claude|codex] [--dry-run] [--purge]',
  description: 'Remove Engram\'s hooks and MCP registration (restoring your settings byte for byte when nothing else changed), and the Obsidian plugin `engram setup` installed: its main.js, manifest.json and styles.css, its folder once empty, and its entry in community-plugins.json (every other entry kept as it was). The plugin\'s data.json stays: it holds your plugin settings, which a reinstall picks up again; delete the folder to drop them. --scope or --agent take out that one registration only, leaving the plugin. --purge also stops running hosts and deletes $ENGRAM_HOME; notes in your vault are never touched.',
  options: {
    scope: { type: 'string', valueName: '<user|project>', description: 'Where install registered (default user)' },
    agent: { type: 'string', valueName: '<claude|codex>', description: 'Which agent (default claude)' },
    'dry-run': { type: 'boolean', description: 'Show the changes without writing anything' },
    purge: { type: 'boolean', description: 'Also stop hosts and delete $ENGRAM_HOME (state, logs, models; never notes)' },
  },
  async run(ctx) {
    const dryRun = Boolean(ctx.options['dry-run']);
    // --scope and --agent name one registration; a plain uninstall (or --purge) undoes setup, the plugin included.
    const narrowed = (ctx.options.scope !== undefined || ctx.options.agent !== undefined) && !ctx.options.purge;
    const plugins = narrowed ? [] : uninstallPlugins(ctx.env, dryRun);
    for (const r of plugins) {
      ctx.stdout(pluginLine(r));
      if (r.note) ctx.stdout(`    ${r.note}`);
    }
    const shim = shimPath(ctx.env);
    const reports = uninstall(targets({ scope: parseScope(ctx.options.scope), agent: parseAgent(ctx.options.agent), cwd: ctx.cwd, env: ctx.env, shim }), ctx.env, dryRun);
    printReports(ctx.stdout, reports);
    // A plugin left whole because its community-plugins.json is not valid JSON: said above with the fix; exit 1.
    const code = plugins.some((r) => r.status === 'refused') ? 1 : 0;
    if (dryRun) return code;
    // The shim (and the `engram` link to it) stays while another registration still runs it.
    const remaining = ctx.options.purge ? [] : remainingRegistrations(ctx.env);
    if (remaining.length) ctx.stdout(`kept ${shim} and the \`engram\` command: still registered in ${remaining.join(', ')}`);
    else {
      const link = unlinkFromPath(ctx.env, shim);
      if (link) ctx.stdout(`\`engram\` command: removed ${link}`);
      fs.rmSync(shim, { force: true });
    }
    if (ctx.options.purge) {
      const home = engramHome(ctx.env);
      const stopped = await stopAllHosts(home);
      fs.rmSync(home, { recursive: true, force: true });
      ctx.stdout(`stopped ${stopped} host(s) and deleted ${home}; your vault's notes are untouched`);
    }
    return code;
  },
};
