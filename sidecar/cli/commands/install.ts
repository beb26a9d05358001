// `engram install`: registers the hooks and the MCP server with Claude Code (or the MCP server with Codex).
import type { CommandDefinition } from '../types.js';
import { EngramError } from '../../../src/core/errors.js';
import { engramEntry } from '../../client/start-host.js';
import { install, targets, writeShim, type ChangeReport, type Scope } from '../../install/installer.js';
import { shimPath } from '../../client/paths.js';

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
    const shim = dryRun ? shimPath(ctx.env) : writeShim(ctx.env, engramEntry());
    const reports = install(targets({ scope: parseScope(ctx.options.scope), agent: parseAgent(ctx.options.agent), cwd: ctx.cwd, env: ctx.env, shim }), ctx.env, dryRun);
    if (ctx.global.json) ctx.stdout(JSON.stringify({ shim, reports }, null, 2));
    else {
      printReports(ctx.stdout, reports);
      if (!dryRun) ctx.stdout(`shim: ${shim}`);
    }
    return 0;
  },
};
