// `engram install`: registers the hooks and the MCP server with Claude Code (or the MCP server with Codex).
import type { CommandDefinition } from '../types.js';
import { EngramError } from '../../../src/core/errors.js';
import { engramEntry } from '../../hosting/start-host.js';
import { install, targets, writeShim, type ChangeReport, type Scope } from '../../install/installer.js';
import { shimPath } from '../../hosting/paths.js';
import { codexRegisteredAt, recordCodexRegistered } from '../../hosting/install-facts.js';
import { describeLink, linkOnPath } from '../../install/bin-link.js';
import { claudePlugin, switchHint } from '../../install/claude-plugin.js';
import { codexHooksReport, codexTrustAdvice } from '../../install/codex-trust.js';

export function printReports(out: (t: string) => void, reports: ChangeReport[]): void {
  for (const r of reports) {
    out(`${r.label}: ${r.status} (${r.file})${r.backup ? `; backup at ${r.backup}` : ''}`);
    if (r.diff) out(r.diff.split('\n').map((l) => `    ${l}`).join('\n'));
  }
}

export function parseScope(v: unknown): Scope {
  if (v === undefined) return 'user';
  if (v === 'user' || v === 'project') return v;
  throw new EngramError('usage', `--scope takes user or project, not "${String(v)}"`);
}

export function parseAgent(v: unknown): 'claude' | 'codex' {
  if (v === undefined || v === 'claude' || v === 'claude-code') return 'claude';
  if (v === 'codex') return 'codex';
  throw new EngramError('usage', `--agent takes claude or codex, not "${String(v)}"`);
}

export const command: CommandDefinition = {
  usage: 'install [--scope user|project] [--agent claude|codex] [--dry-run]',
  description: 'Register Engram\'s hooks and MCP server with Claude Code (merging into your settings, with a backup), or its MCP server with Codex. Points at the stable shim $ENGRAM_HOME/bin/engram. Safe to run again.',
  options: {
    scope: { type: 'string', valueName: '<user|project>', description: 'user: ~/.claude (default); project: ./.claude and ./.mcp.json' },
    agent: { type: 'string', valueName: '<claude|codex>', description: 'Which agent to register with (default claude)' },
    'dry-run': { type: 'boolean', description: 'Show the changes without writing anything' },
  },
  async run(ctx) {
    const dryRun = Boolean(ctx.options['dry-run']);
    const scope = parseScope(ctx.options.scope);
    const agent = parseAgent(ctx.options.agent);
    const plugin = agent === 'claude' ? claudePlugin(ctx.env, ctx.cwd) : undefined;
    if (plugin?.enabled) {
      throw new EngramError('conflict', `the Engram Claude Code plugin (${plugin.id}) already registers the hooks and the MCP server; registering them again would run every hook twice`, switchHint(plugin));
    }
    const shim = dryRun ? shimPath(ctx.env) : writeShim(ctx.env, engramEntry());
    const reports = install(targets({ scope, agent, cwd: ctx.cwd, env: ctx.env, shim }), ctx.env, dryRun);
    // The host follows Codex's rollouts from the moment of this install (not from its own next look, up to 15 s later).
    if (agent === 'codex' && !dryRun && (reports.some((r) => r.status === 'added') || codexRegisteredAt(ctx.env) === undefined)) recordCodexRegistered(ctx.env);
    const link = dryRun ? undefined : linkOnPath(ctx.env, shim);
    if (ctx.global.json) ctx.stdout(JSON.stringify({ shim, link, reports }, null, 2));
    else {
      printReports(ctx.stdout, reports);
      if (!dryRun) ctx.stdout(`shim: ${shim}`);
      if (link) for (const line of describeLink(link)) ctx.stdout(line);
      if (agent === 'codex' && !dryRun) {
        // Codex runs a hook only once the user trusted it (a changed hook, after a re-install, needs trusting again).
        const advice = codexTrustAdvice(codexHooksReport(ctx.env));
        if (advice) {
          ctx.stdout(`${advice.detail}.`);
          ctx.stdout(`To turn them on: ${advice.fix} (context at session start and on each prompt, capture at each turn's end).`);
          ctx.stdout('In `codex exec` (no /hooks screen) and until then, the MCP server serves recall and the host captures each session from its rollout.');
        } else ctx.stdout('Codex already trusts Engram\'s hooks: they run from the next session.');
      }
      if (scope === 'project' && agent === 'claude' && !dryRun) {
        ctx.stdout('Commit .claude/settings.json and .mcp.json: they run `engram` from PATH, not a path on this machine, so each');
        ctx.stdout('teammate who installs Engram (`engram setup` puts `engram` on PATH) gets the hooks and the MCP server.');
        ctx.stdout('Do not commit .claude/settings.json.engram-backup (your copy from before the install).');
      }
    }
    return 0;
  },
};
