// `engram activity [--session ID] [--since 7d] [--json]`: what Engram saw, captured and injected, per session, from the
// activity record (src/core/activity/record.ts). Asks the live host (it has written everything up to now); with none,
// reads the same record here with the same core reader.
import { parseSince } from '../../../src/core/duration.js';
import { ACTIVITY_KINDS, activityFile, readActivity, type ActivityEntry, type ActivityKind, type ActivityResult, type ActivitySession } from '../../../src/core/activity/record.js';
import { EngramError } from '../../../src/core/errors.js';
import { HOOK_CLIENTS, isHookClient } from '../../../src/core/transcript/client.js';
import { callHost } from '../../client/forward.js';
import { engramHome } from '../../hosting/paths.js';
import { NodeStateStore } from '../../hosting/node-state-store.js';
import { requireVault } from '../../hosting/resolve.js';
import type { CommandDefinition } from '../types.js';

function kindsOf(v: unknown): ActivityKind[] | undefined {
  const list = (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
  for (const k of list) if (!ACTIVITY_KINDS.includes(k as ActivityKind)) throw new EngramError('usage', `--kind ${k}: not a kind of entry`, `use ${ACTIVITY_KINDS.join(', ')}`);
  return list.length ? (list as ActivityKind[]) : undefined;
}

const time = (t: string): string => t.slice(0, 19).replace('T', ' ');

/** One line an entry, as a person reads it. */
function describeEntry(e: ActivityEntry): string[] {
  const head = `${time(e.t)}  `;
  switch (e.kind) {
    case 'event':
      return [`${head}${e.event} (hook event, queued for capture)`];
    case 'inject': {
      const out = [`${head}${e.event}: ${e.notes.length ? `injected ${e.notes.length} note${e.notes.length === 1 ? '' : 's'}, ${e.chars} chars (~${e.tokens} tokens)` : 'nothing injected'}`];
      for (const n of e.notes) out.push(`    ${n.path}${n.heading ? `#${n.heading}` : ''}: ${n.why.join('; ')}`);
      for (const w of e.withheld) out.push(`    withheld ${w.path}: ${w.why}`);
      return out;
    }
    case 'extract': {
      const out = [`${head}capture: ${e.outcome}`];
      for (const w of e.windows) out.push(`    window ${w.window}: ${w.backend} ${w.model}, ${w.inputTokens}+${w.outputTokens} tokens, ${w.ms} ms, ${w.outcome}${w.reason ? ` (${w.reason})` : ''}`);
      for (const b of e.beats) out.push(`    ${b.action} ${b.path}${b.proposal ? ` (proposal ${b.proposal})` : ''}`);
      for (const c of e.cited ?? []) out.push(`    cited by the assistant: ${c}`);
      const redacted = Object.entries(e.redactions ?? {});
      if (redacted.length) out.push(`    redacted: ${redacted.map(([k, n]) => `${n} ${k}`).join(', ')}`);
      return out;
    }
    case 'mcp':
      return [`${head}MCP ${e.method}${e.notes?.length ? ` ${e.notes.join(', ')}` : ''}: ${e.answerChars} chars answered in ${e.ms} ms${e.error ? ` (error: ${e.error})` : ''}`];
    case 'failure':
      return [`${head}failed: ${e.what}: ${e.error} (${e.next === 'retry' ? 'retried on the next sweep' : 'set aside in spool/failed/'})`];
    case 'memory':
      return [`${head}Claude Code memory ${e.source}: ${e.action} ${e.path}${e.why ? ` (${e.why})` : ''}`];
  }
}

function describeSession(s: ActivitySession): string {
  const parts = [
    `${s.events} event${s.events === 1 ? '' : 's'}`,
    `${s.injectedNotes} notes injected (${s.injectedChars} chars, ~${s.injectedTokens} tokens)`,
    ...(s.withheld ? [`${s.withheld} withheld`] : []),
    `${s.filed} filed`,
    ...(s.proposed ? [`${s.proposed} proposed`] : []),
    ...(s.inputTokens + s.outputTokens ? [`capture ${s.inputTokens + s.outputTokens} LLM tokens`] : []),
    ...(s.failures ? [`${s.failures} failures`] : []),
  ];
  return `session ${s.session}${s.project ? ` (${s.project})` : ''}${s.agent ? ` [${s.agent}]` : ''}, ${time(s.first)} – ${time(s.last)}: ${parts.join(', ')}`;
}

export const command: CommandDefinition = {
  usage: 'activity [--session ID] [--since SPAN] [--kind KIND] [--client CLIENT] [-n N] [--json]',
  description: 'What Engram saw, captured and injected: each hook event, each extraction (windows, backend, tokens, notes filed or proposed), each injection (notes, why they matched, characters and estimated tokens, what was withheld and why), each MCP request, each failure. Newest last; a summary per session first.',
  options: {
    session: { type: 'string', valueName: '<id>', description: 'Only this session' },
    since: { type: 'string', valueName: '<span|date>', description: 'Only entries since then (7d, 2w, 2026-11-01); default: the last day' },
    kind: { type: 'string', multiple: true, valueName: '<kind>', description: `Only these kinds: ${ACTIVITY_KINDS.join(', ')}` },
    client: { type: 'string', valueName: '<client>', description: `Only the sessions this client ran (and its entries of no session): ${HOOK_CLIENTS.join(', ')}` },
    limit: { type: 'number', short: 'n', valueName: '<n>', description: 'Most entries shown (newest; default 200)' },
  },
  details: 'Examples:\n  engram activity\n  engram activity --session 0b6e… --json\n  engram activity --since 7d --kind inject --client codex',
  async run(ctx) {
    const session = typeof ctx.options.session === 'string' ? ctx.options.session : undefined;
    // One session: all of it; otherwise the last day unless asked.
    const since = typeof ctx.options.since === 'string' ? ctx.options.since : session ? undefined : '1d';
    const limit = typeof ctx.options.limit === 'number' ? ctx.options.limit : 200;
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= 10_000)) throw new EngramError('usage', '-n takes a whole number from 1 to 10000');
    const kinds = kindsOf(ctx.options.kind);
    const agent = typeof ctx.options.client === 'string' ? ctx.options.client : undefined;
    if (agent !== undefined && !isHookClient(agent)) throw new EngramError('usage', `--client ${agent}: not a client Engram knows`, `use ${HOOK_CLIENTS.join(' or ')}`);
    const sinceMs = since === undefined ? undefined : parseSince(since, Date.now());
    const r: ActivityResult = (await callHost(ctx, 'activity', { session, since, limit, kinds, ...(agent ? { agent } : {}) }))?.result
      ?? (await readActivity(new NodeStateStore(engramHome(ctx.env)), activityFile(requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config).key), { session, since: sinceMs, limit, kinds, agent }));
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify(r, null, 2));
      return 0;
    }
    if (!r.matched) {
      ctx.stdout(`No activity${session ? ` for session ${session}` : ''}${since ? ` since ${since}` : ''}.`);
      return 0;
    }
    for (const s of r.sessions) ctx.stdout(describeSession(s));
    ctx.stdout('');
    if (r.matched > r.entries.length) ctx.stdout(`(the last ${r.entries.length} of ${r.matched} entries; -n for more)`);
    let last: string | undefined;
    for (const e of r.entries) {
      const who = e.session ?? (e.kind === 'mcp' ? `MCP${e.agent ? ` [${e.agent}]` : ''}` : '(no session)');
      if (!session && who !== last) ctx.stdout(`— ${who}`);
      last = who;
      for (const line of describeEntry(e)) ctx.stdout(line);
    }
    if (r.unreadable) ctx.stderr(`note: ${r.unreadable} unreadable lines in the activity record were skipped`);
    return 0;
  },
};
