// Whether Codex will run Engram's hooks. Codex (0.169) runs a non-managed command hook from hooks.json only once the
// user trusted it in its /hooks screen, which records `[hooks.state."<key>"] trusted_hash = "sha256:…"` in
// config.toml: the key is `<hooks.json path>:<event label>:<group index>:<handler index>`, the hash covers the
// handler's normalized definition (event label, matcher, command, timeout, async), so an edited handler (a new
// timeout, a moved shim) is "modified" and stops running until it is trusted again. The hash was checked against
// `codex app-server`'s `hooks/list` (currentHash, trustStatus) for the same files (tests/real/codex-hooks.test.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { codexHome } from '../hosting/paths.js';
import { isOurHookCommand } from './registration.js';

/** Codex's snake_case label of each event, as in the state key and the hashed identity. */
const EVENT_LABELS: Record<string, string> = {
  SessionStart: 'session_start', UserPromptSubmit: 'user_prompt_submit', Stop: 'stop', PreCompact: 'pre_compact', PostCompact: 'post_compact',
  SessionEnd: 'session_end', PreToolUse: 'pre_tool_use', PostToolUse: 'post_tool_use', PermissionRequest: 'permission_request', SubagentStart: 'subagent_start', SubagentStop: 'subagent_stop',
};

export type CodexHookTrust = 'trusted' | 'untrusted' | 'modified' | 'disabled';

export interface CodexHookState {
  event: string;
  key: string;
  trust: CodexHookTrust;
}

export interface CodexHooksReport {
  hooksFile: string;
  configFile: string;
  /** Engram's handlers in hooks.json (none: nothing registered there). */
  hooks: CodexHookState[];
  /** `[features] hooks = false` (or the older `codex_hooks = false`): Codex runs no hook at all. */
  featureOff: boolean;
}

type Json = Record<string, unknown>;

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((v as Json)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** The hash Codex records when the user trusts one handler (its normalized identity, keys sorted, compact JSON). */
export function codexHookHash(label: string, matcher: unknown, handler: Json): string {
  const sessionEnd = label === 'session_end';
  const raw = typeof handler.timeout === 'number' && Number.isFinite(handler.timeout) ? handler.timeout : sessionEnd ? 1 : 600;
  const normalized: Json = { type: 'command', command: handler.command, timeout: sessionEnd ? Math.min(3, Math.max(1, raw)) : Math.max(1, raw), async: handler.async === true };
  if (typeof handler.statusMessage === 'string' && handler.statusMessage) normalized.statusMessage = handler.statusMessage;
  const identity: Json = { event_name: label, hooks: [normalized] };
  if (typeof matcher === 'string') identity.matcher = matcher;
  return `sha256:${createHash('sha256').update(sortedJson(identity)).digest('hex')}`;
}

/** A TOML key or string as written (basic "…" with escapes, literal '…', or bare), or undefined. */
function tomlString(s: string): string | undefined {
  const t = s.trim();
  if (t.startsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return undefined;
    }
  }
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1);
  return /^[A-Za-z0-9_-]+$/.test(t) ? t : undefined;
}

interface StateEntry {
  trustedHash?: string;
  enabled?: boolean;
}

/**
 * The `hooks.state` entries of Codex's config.toml: `[hooks.state."<key>"]` tables with `trusted_hash` and `enabled`,
 * and inline tables under `[hooks.state]` (`"<key>" = { trusted_hash = "…" }`). Also whether hooks are turned off.
 */
export function readHookStates(toml: string): { states: Map<string, StateEntry>; featureOff: boolean } {
  const states = new Map<string, StateEntry>();
  let table = '';
  let current: StateEntry | undefined;
  let featureOff = false;
  const field = (entry: StateEntry, k: string, v: string) => {
    if (k === 'trusted_hash') entry.trustedHash = tomlString(v);
    else if (k === 'enabled') entry.enabled = v.trim() !== 'false';
  };
  for (const line of toml.split(/\r?\n/)) {
    const header = /^\s*\[([^[\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = header[1].trim();
      const key = /^hooks\s*\.\s*state\s*\.\s*(.+)$/.exec(table);
      const name = key ? tomlString(key[1]) : undefined;
      current = name === undefined ? undefined : (states.get(name) ?? states.set(name, {}).get(name));
      continue;
    }
    const kv = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=\s*(.+?)\s*(#[^"']*)?$/.exec(line);
    if (!kv) continue;
    const k = tomlString(kv[1]) ?? kv[1];
    if (current) field(current, k, kv[2]);
    else if (table === 'features' && (k === 'hooks' || k === 'codex_hooks') && kv[2].trim() === 'false') featureOff = true;
    else if (table === 'hooks.state' && kv[2].startsWith('{')) {
      const entry: StateEntry = {};
      for (const m of kv[2].slice(1, -1).matchAll(/([A-Za-z_]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|true|false)/g)) field(entry, m[1], m[2]);
      states.set(k, entry);
    }
  }
  return { states, featureOff };
}

function readJson(file: string): Json | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Each Engram hook in $CODEX_HOME/hooks.json and whether Codex will run it. */
export function codexHooksReport(env: NodeJS.ProcessEnv): CodexHooksReport {
  const home = codexHome(env);
  const hooksFile = path.join(home, 'hooks.json');
  const configFile = path.join(home, 'config.toml');
  let toml = '';
  try {
    toml = fs.readFileSync(configFile, 'utf8');
  } catch {
    // no config.toml: nothing trusted
  }
  const { states, featureOff } = readHookStates(toml);
  const hooks: CodexHookState[] = [];
  const events = (readJson(hooksFile)?.hooks ?? {}) as Record<string, unknown>;
  for (const [event, groups] of Object.entries(events)) {
    const label = EVENT_LABELS[event];
    if (!label || !Array.isArray(groups)) continue;
    groups.forEach((group: Json, g) => {
      const handlers = Array.isArray(group?.hooks) ? (group.hooks as Json[]) : [];
      handlers.forEach((handler, h) => {
        if (!isOurHookCommand(handler?.command)) return;
        const key = `${hooksFile}:${label}:${g}:${h}`;
        const state = states.get(key);
        const trust: CodexHookTrust = state?.enabled === false ? 'disabled' : !state?.trustedHash ? 'untrusted' : state.trustedHash === codexHookHash(label, group.matcher, handler) ? 'trusted' : 'modified';
        hooks.push({ event, key, trust });
      });
    });
  }
  return { hooksFile, configFile, hooks, featureOff };
}

/** What to tell the user about Codex's trust in Engram's hooks, or undefined when all are trusted (or none are there). */
export function codexTrustAdvice(r: CodexHooksReport): { detail: string; fix: string } | undefined {
  if (!r.hooks.length) return undefined;
  if (r.featureOff) return { detail: `Codex's hooks are turned off in ${r.configFile} ([features] hooks = false): Codex sessions get no context from Engram's hooks`, fix: `remove \`hooks = false\` from [features] in ${r.configFile}, then start \`codex\`, type /hooks and trust Engram's hooks` };
  const not = r.hooks.filter((h) => h.trust !== 'trusted');
  if (!not.length) return undefined;
  const by = (t: CodexHookTrust) => not.filter((h) => h.trust === t).map((h) => h.event);
  const parts = [
    by('untrusted').length ? `not yet trusted: ${by('untrusted').join(', ')}` : '',
    by('modified').length ? `changed since you trusted them (re-installed or moved): ${by('modified').join(', ')}` : '',
    by('disabled').length ? `turned off in /hooks: ${by('disabled').join(', ')}` : '',
  ].filter(Boolean);
  return {
    detail: `Codex runs ${r.hooks.length - not.length}/${r.hooks.length} of Engram's hooks in ${r.hooksFile} (${parts.join('; ')}); until it runs them, Codex sessions get no context at their start or prompt, and are captured from their rollouts`,
    fix: 'start `codex`, type /hooks, and trust (and turn on) the Engram hooks',
  };
}
