// What `engram install` adds to Claude Code's settings (hooks) and MCP config, and to Codex's (config.toml, hooks.json), and how to take exactly that out.
import { diffLines } from '../../src/core/diff.js';
import { HOOK_EVENTS, type HookEvent } from '../../src/core/protocol/messages.js';
import { MCP_NAME } from '../hosting/install-facts.js';


/** Seconds Claude Code allows each hook (ours return far sooner; these are only ceilings). */
export const HOOK_TIMEOUTS: Record<string, number> = { SessionStart: 10, UserPromptSubmit: 10, Stop: 10, PreCompact: 10, SessionEnd: 5 };
const MATCHERS: Record<string, string | undefined> = { SessionStart: 'startup|resume|clear|compact', PreCompact: 'manual|auto' };

type Json = Record<string, unknown>;

function quote(p: string): string {
  return /[\s"'$`\\]/.test(p) ? `"${p.replace(/(["\\$`])/g, '\\$1')}"` : p;
}

export function hookCommand(shim: string, event: string): string {
  return `${quote(shim)} hook ${event}`;
}

/** True for a hook command that runs `engram hook …` (ours, from any install location). */
export function isOurHookCommand(cmd: unknown): boolean {
  return typeof cmd === 'string' && /(^|[\\/"\s])engram(\.cmd|\.mjs)?"?\s+hook\s+[A-Za-z]+\s*$/.test(cmd);
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * The events Engram registers with Codex (hooks.json, the same format as Claude Code's): context at session start and
 * on each prompt, capture at each turn's end and before a compaction. No SessionEnd: Codex cuts its timeout to 3 s and
 * warns on every run; what the last Stop did not cover, the rollout follower picks up.
 */
export const CODEX_HOOK_EVENTS: readonly HookEvent[] = ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact'];

export function addHooks(settings: Json, shim: string, events: readonly HookEvent[] = HOOK_EVENTS): Json {
  const out = clone(settings);
  const hooks = (typeof out.hooks === 'object' && out.hooks !== null ? out.hooks : {}) as Record<string, unknown[]>;
  for (const event of events) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    const cleaned = removeOurs(groups);
    const group: Json = {};
    if (MATCHERS[event]) group.matcher = MATCHERS[event];
    group.hooks = [{ type: 'command', command: hookCommand(shim, event), timeout: HOOK_TIMEOUTS[event] }];
    hooks[event] = [...cleaned, group];
  }
  out.hooks = hooks;
  return out;
}

function removeOurs(groups: Json[]): Json[] {
  const out: Json[] = [];
  for (const g of groups) {
    const list = Array.isArray(g.hooks) ? (g.hooks as Json[]) : [];
    const kept = list.filter((h) => !isOurHookCommand(h.command));
    if (kept.length === list.length) out.push(g);
    else if (kept.length) out.push({ ...g, hooks: kept });
  }
  return out;
}

export function removeHooks(settings: Json): Json {
  const out = clone(settings);
  if (typeof out.hooks !== 'object' || out.hooks === null) return out;
  const hooks = out.hooks as Record<string, unknown>;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept = removeOurs(groups as Json[]);
    if (kept.length) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete out.hooks;
  return out;
}

export function hasOurHooks(settings: Json): string[] {
  const hooks = (settings.hooks ?? {}) as Record<string, unknown>;
  return HOOK_EVENTS.filter((e) => Array.isArray(hooks[e]) && (hooks[e] as Json[]).some((g) => Array.isArray(g.hooks) && (g.hooks as Json[]).some((h) => isOurHookCommand(h.command))));
}

export function addMcp(config: Json, shim: string): Json {
  const out = clone(config);
  const servers = (typeof out.mcpServers === 'object' && out.mcpServers !== null ? out.mcpServers : {}) as Json;
  servers[MCP_NAME] = { type: 'stdio', command: shim, args: ['mcp'], env: {} };
  out.mcpServers = servers;
  return out;
}

export function removeMcp(config: Json): Json {
  const out = clone(config);
  const servers = out.mcpServers as Json | undefined;
  if (!servers || typeof servers !== 'object') return out;
  delete servers[MCP_NAME];
  if (Object.keys(servers).length === 0) delete out.mcpServers;
  return out;
}

/** The indentation a JSON file uses (so our rewrite looks like the user's). */
export function detectIndent(text: string): string | number {
  const m = /^[ \t]+(?=")/m.exec(text);
  return m ? m[0] : 2;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Json)[k])]));
  return v;
}

export function codexBlock(shim: string, env: Record<string, string> = {}): string {
  const vars = Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ');
  // required: `codex exec` otherwise starts the first turn without waiting for the server, and the model never sees
  // the tools. `engram mcp` always completes its handshake (a missing vault is reported by each tool).
  return `\n[mcp_servers.${MCP_NAME}]\ncommand = ${JSON.stringify(shim)}\nargs = ["mcp"]\nrequired = true\n${vars ? `env = { ${vars} }\n` : ''}`;
}

export function removeCodexBlock(toml: string): string {
  const re = new RegExp(`\\n?\\[mcp_servers\\.${MCP_NAME}\\]\\n(?:(?!\\[)[^\\n]*\\n?)*`, 'g');
  return toml.replace(re, '');
}

/** The changed lines for --dry-run (`- ` removed, `+ ` added), by core's one line diff. */
export function lineDiff(before: string, after: string): string {
  return diffLines(before, after).filter((l) => l.op !== 'same').map((l) => `${l.op === 'add' ? '+' : '-'} ${l.text}`).join('\n');
}
