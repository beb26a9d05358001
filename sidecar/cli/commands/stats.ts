// `engram stats [--days 30] [--json]`: the dashboard's figures in a terminal (src/core/activity/stats.ts): captures and
// injections per day, injected tokens per session against the session budget, notes by type and project, the review
// backlog, failures. Asks the live host; with none, reads the activity record and the notes' frontmatter here.
import { activityFile, readActivity } from '../../../src/core/activity/record.js';
import { activityStats, type StatsResult } from '../../../src/core/activity/stats.js';
import { statsHtml } from '../../../src/core/activity/stats-html.js';
import { atomicWriteFileSync } from '../../hosting/atomic-write.js';
import path from 'node:path';
import { countDue } from '../../../src/core/engine.js';
import { EngramError } from '../../../src/core/errors.js';
import { VaultCatalog } from '../../../src/core/extract/vault-catalog.js';
import { callHost } from '../../client/forward.js';
import { NodeStateStore } from '../../hosting/node-state-store.js';
import { NodeVault } from '../../hosting/node-vault.js';
import { engramHome } from '../../hosting/paths.js';
import { requireVault } from '../../hosting/resolve.js';
import type { CommandContext, CommandDefinition } from '../types.js';

async function here(ctx: CommandContext, days: number): Promise<StatsResult> {
  const v = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
  const config = ctx.config();
  const now = Date.now();
  const activity = await readActivity(new NodeStateStore(engramHome(ctx.env)), activityFile(v.key), { since: now - days * 86_400_000 });
  const catalog = await VaultCatalog.load(new NodeVault(v.realPath));
  const metas = [...catalog.notes.values()].map((n) => n.meta);
  const archive = config.get('folders.archive');
  const caps = { sessionStartChars: config.get('recall.session_start_chars'), promptChars: config.get('recall.prompt_chars'), sessionChars: config.get('recall.session_chars') };
  return activityStats(activity, metas, { now, days, sessionChars: caps.sessionChars, caps, archive, reviewBacklog: countDue(metas, new Date(now).toISOString().slice(0, 10), archive) });
}

/** A bar of `n` against `max`, `width` characters at most. */
function bar(n: number, max: number, width = 30): string {
  return max > 0 ? '█'.repeat(Math.round((n / max) * width)) : '';
}

function print(ctx: CommandContext, s: StatsResult): void {
  const t = s.totals;
  ctx.stdout(`Since ${s.since}: ${t.sessions} sessions, ${t.injections} injections (~${t.injectedTokens.toLocaleString('en-US')} tokens), ${t.filed} notes filed${t.proposed ? `, ${t.proposed} held for review` : ''}, ${t.captureTokens.toLocaleString('en-US')} LLM tokens on capture, ${t.mcpCalls} MCP calls, ${t.failures} failures.`);
  ctx.stdout(`Notes: ${s.notes.total} (${s.notes.engram} by Engram); review backlog ${s.reviewBacklog}.`);
  const u = s.use;
  if (u.injected) ctx.stdout(`Injected notes read or cited later: ${u.used} of ${u.injected} (${Math.round((u.used / u.injected) * 100)}%; ${u.read} read over MCP, ${u.cited} named by the assistant).`);
  if (t.redactions) ctx.stdout(`Secrets redacted from captured transcripts: ${t.redactions}.`);
  const types = Object.entries(s.notes.byType).sort((a, b) => b[1] - a[1]).slice(0, 8);
  if (types.length) ctx.stdout(`  by type: ${types.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const projects = Object.entries(s.notes.byProject).sort((a, b) => b[1] - a[1]).slice(0, 8);
  if (projects.length) ctx.stdout(`  by project: ${projects.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  ctx.stdout('');
  ctx.stdout('Injected tokens per day:');
  const max = Math.max(...s.days.map((d) => d.injectedTokens));
  for (const d of s.days) if (d.events || d.injectedTokens || d.filed) ctx.stdout(`  ${d.day}  ${String(d.injectedTokens).padStart(7)}  ${bar(d.injectedTokens, max)}  (${d.injections} injections, ${d.filed} filed${d.failures ? `, ${d.failures} failures` : ''})`);
  if (s.sessions.length) {
    ctx.stdout('');
    ctx.stdout(`Injected tokens per session${s.sessionBudgetTokens ? ` (budget ~${s.sessionBudgetTokens.toLocaleString('en-US')} a session)` : ''}:`);
    for (const x of s.sessions.slice(0, 15)) {
      const share = s.sessionBudgetTokens ? ` ${Math.round((x.injectedTokens / s.sessionBudgetTokens) * 100)}%` : '';
      ctx.stdout(`  ${x.last.slice(0, 10)}  ${x.session.slice(0, 8)}${x.project ? ` (${x.project})` : ''}  ~${x.injectedTokens} tokens${share}, ${x.injections} injections`);
    }
  }
}

export const command: CommandDefinition = {
  usage: 'stats [--days N] [--json] [--html FILE]',
  description: 'The dashboard in the terminal: captures and injections per day, injected tokens per session against the session budget, notes by type and project, the review backlog, failures (from the activity record).',
  options: {
    days: { type: 'number', valueName: '<n>', description: 'How many days back (default 30, at most 365)' },
    html: { type: 'string', valueName: '<file>', description: 'Also write the figures as one self-contained HTML page (SVG charts, light and dark)' },
  },
  details: 'Examples:\n  engram stats\n  engram stats --days 7 --json\n  engram stats --days 90 --html engram-stats.html',
  async run(ctx) {
    const days = typeof ctx.options.days === 'number' ? ctx.options.days : 30;
    if (!(Number.isInteger(days) && days >= 1 && days <= 365)) throw new EngramError('usage', '--days takes a whole number from 1 to 365');
    const s = (await callHost(ctx, 'stats', { days }))?.result ?? (await here(ctx, days));
    if (ctx.global.json) ctx.stdout(JSON.stringify(s, null, 2));
    else print(ctx, s);
    if (typeof ctx.options.html === 'string') {
      const file = path.resolve(ctx.cwd, ctx.options.html);
      atomicWriteFileSync(file, statsHtml(s, new Date().toISOString()));
      if (!ctx.global.json) ctx.stdout(`\nWrote ${file}.`);
      else ctx.stderr(`Wrote ${file}.`);
    }
    return 0;
  },
};
