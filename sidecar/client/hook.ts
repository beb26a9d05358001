// `engram hook <Event>`: the code on every prompt's critical path. Client-only imports (no engine, index, model).
// Stop/PreCompact/SessionEnd: spool first, then nudge the host. SessionStart/UserPromptSubmit: ask for context
// within a deadline. Always exit 0; stdout carries only the hookSpecificOutput JSON.
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_EVENTS, type HookEvent } from '../../src/core/protocol/messages.js';
import { hostSupports } from '../../src/core/protocol/version.js';
import { clientOfTranscript } from '../../src/core/transcript/client.js';
import { HostConnection, isNoHost } from '../hosting/connection.js';
import { engramHome, logsDir, vaultState } from '../hosting/paths.js';
import { appendLog } from '../hosting/log.js';
import { captureEnabled, clientSettings, resolveProject, resolveVault } from '../hosting/settings.js';
import { hostStarting, startHostDetached } from '../hosting/start-host.js';
import { hungHost, killHungHost } from '../hosting/hung-host.js';
import { SPOOL_FORMAT, lossCause, recordLostEvent, writeSpoolEntry } from '../hosting/spool-writer.js';
import type { ConfigReader } from '../hosting/config-file.js';

export interface HookIo {
  event: string;
  vaultOption?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** config.json as the hook's entry read it (sidecar/cli/hook-main.ts reads it once a process: it runs every prompt). */
  config: ConfigReader;
  readStdin: () => Promise<string>;
  stdout: (text: string) => void;
}

const SPOOL_EVENTS = ['Stop', 'PreCompact', 'SessionEnd'] as const;

/** An event the hook spools for capture (the others ask the host for context). */
function isSpoolEvent(e: HookEvent): e is (typeof SPOOL_EVENTS)[number] {
  return (SPOOL_EVENTS as readonly string[]).includes(e);
}

/**
 * How long a context hook that found no host may run in all, counted from its process's start, when it waits for the
 * host it starts (which answers from its saved index in 0.1–3 s from 110 to 13,415 notes): the hook's own limit
 * (10 s for both, registration.ts and plugin/hooks/hooks.json) less 0.8 s for the answer, the exit and the client's own
 * start of the process. UserPromptSubmit's limit was 5 s: with many hooks at once on a loaded machine each hook's
 * process took most of it just to start, and the host they all waited for answered after they had given up.
 */
export const COLD_START_BUDGET_MS = { SessionStart: 9200, UserPromptSubmit: 9200 } as const;

/** When this process started (the client's clock for the hook's limit starts about then, not when this code runs). */
function processStartedAt(): number {
  return performance.timeOrigin;
}

/**
 * No host is running: start one and wait for it while it is on its way and the budget lasts, so the first prompt
 * after an idle exit or a reboot gets its context too. Gives up at once when no host is starting any more (its start
 * failed), so a broken setup never slows every prompt.
 */
async function connectStartedHost(state: ReturnType<typeof vaultState>, env: NodeJS.ProcessEnv, budgetMs: number, why: string, log: (msg: string) => void): Promise<{ conn: HostConnection; deadline: number } | undefined> {
  const deadline = Date.now() + budgetMs;
  const pid = startHostDetached(state.vault, env);
  log(`no host running (${why}); ${pid ? `started one (pid ${pid})` : 'one is starting'}, waiting up to ${budgetMs} ms`);
  for (;;) {
    try {
      return { conn: await HostConnection.open({ socket: state.socket, env, deadline, client: 'hook' }), deadline };
    } catch (e) {
      // While a killed host's socket goes away, a connection to it may be reset: not an answer yet, like no host.
      if (!isNoHost(e) && (e as NodeJS.ErrnoException).code !== 'ECONNRESET') {
        log(`no context: ${(e as Error).message}`);
        return undefined;
      }
    }
    if (Date.now() + 50 >= deadline) {
      log(`no context: the host did not answer within ${budgetMs} ms`);
      return undefined;
    }
    if (!hostStarting(state)) {
      log('no context: the host did not start (see its log: engram status)');
      return undefined;
    }
    await socketAppears(state.socket, Math.min(START_LOOK_MS, deadline - Date.now()));
  }
}

/** How often a hook waiting for a starting host looks again when nothing woke it (a failed start, a missed event). */
const START_LOOK_MS = 200;

/**
 * Waits until the host's socket appears or `ms` pass. Fifty hooks polling every 50 ms took a large share of a loaded
 * machine's CPU from the one host they all waited for; a watch on the socket's folder costs nothing while it waits.
 */
function socketAppears(socket: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let watcher: fs.FSWatcher | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    try {
      watcher = fs.watch(path.dirname(socket), (_event, name) => {
        if (!name || name === path.basename(socket)) done();
      });
      watcher.on('error', done);
    } catch {
      // No socket folder yet, or a Windows pipe: the timer alone.
    }
    // (A socket bound between the last look and this watch is seen at the next look; a stale socket file left by a
    // killed host is not taken for a live one, which a check for the file here would spin on.)
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/**
 * The host did not answer: when it is stopped or stuck (hung-host.ts) and is Engram's own daemon, it is killed so a
 * new one can start. Returns why it was replaced, or undefined when it may only be busy (or is Obsidian's).
 */
async function replaceIfHung(state: ReturnType<typeof vaultState>, log: (msg: string) => void): Promise<string | undefined> {
  const hung = hungHost(state);
  if (!hung) return undefined;
  if (!hung.replaceable) {
    log(`the Obsidian host ${hung.why}; not replaced (resume or restart Obsidian)`);
    return undefined;
  }
  const gone = await killHungHost(hung);
  log(`the host ${hung.why}: ${gone ? 'killed it, a new one starts' : 'could not kill it'}`);
  return gone ? `the host ${hung.why}, killed` : undefined;
}

/**
 * How long a context hook waits for a live host. The configured deadline, except at SessionStart: that hook runs once a
 * session, the whole session starts from what it injects, and Claude Code waits for it anyway, so a host that is only
 * busy (running, its event loop moving: a large vault's first read, a machine under load) is waited for as long as a
 * host the hook starts itself (COLD_START_BUDGET_MS). At the configured deadline the host is judged: stopped or stuck
 * (hung-host.ts), the wait ends there as before and the host is replaced.
 */
function patienceFor(state: ReturnType<typeof vaultState>, event: HookEvent, began: number, deadline: number, endAt: number, log: (msg: string) => void): { until: number; signal: AbortSignal; waited(): boolean; stop(): void } {
  const watch = new AbortController();
  const until = event === 'SessionStart' ? Math.max(deadline, endAt) : deadline;
  let waited = false;
  if (until <= deadline) return { until, signal: watch.signal, waited: () => false, stop: () => {} };
  const judge = setTimeout(() => {
    const hung = hungHost(state);
    if (hung) {
      watch.abort(new Error(`the host ${hung.why}`));
      return;
    }
    waited = true;
    log(`the host has not answered in ${deadline - began} ms but is running (busy): waiting ${until - Date.now()} ms more`);
  }, Math.max(0, deadline - Date.now()));
  return { until, signal: watch.signal, waited: () => waited, stop: () => clearTimeout(judge) };
}

async function nudgeHost(state: ReturnType<typeof vaultState>, env: NodeJS.ProcessEnv, log: (msg: string) => void): Promise<void> {
  try {
    const conn = await HostConnection.open({ socket: state.socket, env, deadline: Date.now() + 250, client: 'hook' });
    await conn.send('spool.notify', {});
    conn.close();
  } catch (e) {
    if (isNoHost(e) || (await replaceIfHung(state, log))) startHostDetached(state.vault, env);
    else log(`could not notify the host: ${(e as Error).message}`);
  }
}

/** The event's stdin as a JSON object, or undefined (logged) when it is not one. */
async function readPayload(io: HookIo, log: (msg: string) => void): Promise<Record<string, unknown> | undefined> {
  const raw = await io.readStdin();
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (e) {
    log(`payload is not a JSON object (${(e as Error).message}); nothing done`);
    return undefined;
  }
}

/** The vault the hook works for: --vault (relative to where the hook runs), else the one configured for `cwd`. */
function hookVault(io: HookIo, cwd: string, log: (msg: string) => void): string | undefined {
  const resolved = io.vaultOption ? { vault: path.resolve(io.cwd, io.vaultOption) } : resolveVault({ cwd, env: io.env, config: io.config });
  if (!resolved) {
    log('no vault configured (set one with `engram setup` or `engram configure vault_path …`); nothing done');
    return undefined;
  }
  if (!fs.existsSync(resolved.vault)) {
    log(`vault path does not exist: ${resolved.vault}; nothing done`);
    return undefined;
  }
  return resolved.vault;
}

interface HookCall {
  event: HookEvent;
  payload: Record<string, unknown>;
  cwd: string;
  sessionId: string;
  state: ReturnType<typeof vaultState>;
  env: NodeJS.ProcessEnv;
  config: ConfigReader;
  log: (msg: string) => void;
  stdout: (text: string) => void;
}

/** Stop/PreCompact/SessionEnd: the event goes to the spool first (never lost to a missing host), then the host is nudged. */
async function spoolEvent(h: HookCall & { event: (typeof SPOOL_EVENTS)[number] }): Promise<void> {
  const { event, payload, cwd, sessionId, state, env, log } = h;
  if (!captureEnabled(cwd)) {
    log(`capture is off for ${cwd} (.claude/engram.local.json)`);
    return;
  }
  const transcriptPath = str(payload.transcript_path);
  let transcriptBytes: number | undefined;
  if (transcriptPath) {
    try {
      transcriptBytes = fs.statSync(transcriptPath).size;
    } catch {
      // A session that never wrote a transcript (`claude mcp list`/`get` fire SessionEnd for one that never
      // exists): nothing to capture, so nothing is spooled and no host is started.
      return;
    }
  }
  try {
    writeSpoolEntry(state.spool, { format: SPOOL_FORMAT, event, sessionId, transcriptPath, transcriptBytes, cwd, project: resolveProject(cwd), spooledAt: new Date().toISOString(), payload });
  } catch (e) {
    // Lost (a full disk, a read-only $ENGRAM_HOME): say so where `engram status` and `engram doctor` look, even
    // when the log cannot grow. The session's next Stop covers its transcript up to then.
    const code = (e as NodeJS.ErrnoException).code ?? 'ERROR';
    const marker = recordLostEvent([state.dir, logsDir(env), engramHome(env)], { event, sessionId, error: e });
    const logged = appendLog('hook.log', `${event}: event LOST for session ${sessionId}: ${lossCause(code)} (${(e as Error).message})`, env);
    if (!marker && !logged) process.stderr.write(`engram: hook event ${event} lost: ${lossCause(code)} (${(e as Error).message})\n`);
    return;
  }
  await nudgeHost(state, env, log);
}

/**
 * A connection to the vault's host for a context hook, and until when its answer is waited for: the live host (a busy
 * one at SessionStart waited for until `endAt`), else one this hook starts (or another hook is starting), waited for
 * until `endAt` (COLD_START_BUDGET_MS after the process started). Undefined (logged) when there is none to ask.
 */
async function connectForContext(h: HookCall, began: number, deadline: number, endAt: number): Promise<{ conn: HostConnection; deadline: number; patience: ReturnType<typeof patienceFor> } | undefined> {
  const { state, env, log } = h;
  const patience = patienceFor(state, h.event, began, deadline, endAt, log);
  try {
    const conn = await HostConnection.open({ socket: state.socket, env, deadline: patience.until, client: 'hook', signal: patience.signal });
    // The context is waited for as long: a host found stopped or stuck meanwhile drops the connection at once.
    patience.signal.addEventListener('abort', () => conn.close(), { once: true });
    return { conn, deadline: patience.until, patience };
  } catch (e) {
    patience.stop();
    const replaced = isNoHost(e) ? undefined : await replaceIfHung(state, log);
    if (!isNoHost(e) && !replaced) {
      log(`no context: ${(e as Error).message}`);
      return undefined;
    }
    const why = replaced ?? (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const started = await connectStartedHost(state, env, Math.max(endAt, deadline) - Date.now(), why, log);
    return started && { ...started, patience };
  }
}

/** SessionStart/UserPromptSubmit: the host's context for the prompt (or the session's start), printed for the client. */
async function injectContext(h: HookCall & { event: Exclude<HookEvent, (typeof SPOOL_EVENTS)[number]> }): Promise<void> {
  const { event, payload, cwd, sessionId, env, log } = h;
  const settings = clientSettings(h.config, env);
  if (!settings.inject) return;
  const start = event === 'SessionStart';
  const began = Date.now();
  // The one end of this hook's wait, counted from the process's start as the client counts the hook's limit.
  const endAt = Math.round(processStartedAt() + COLD_START_BUDGET_MS[start ? 'SessionStart' : 'UserPromptSubmit']);
  const connected = await connectForContext(h, began, began + (start ? settings.session_start_deadline_ms : settings.prompt_deadline_ms), endAt);
  if (!connected) return;
  const { conn, deadline, patience } = connected;
  try {
    const result = await conn.call('context', {
      event,
      // A host older than protocol 1.1 refuses fields it does not know.
      source: start && hostSupports(conn.hello.protocolVersion, 1) ? str(payload.source)?.slice(0, 32) : undefined,
      sessionId,
      prompt: start ? undefined : str(payload.prompt),
      cwd,
      project: resolveProject(cwd),
      maxChars: start ? settings.session_start_max_chars : settings.prompt_max_chars,
      maxItems: start ? 8 : settings.prompt_max_items,
      agent: hostSupports(conn.hello.protocolVersion, 6) ? clientOfTranscript(str(payload.transcript_path)) : undefined,
    }, deadline);
    if (patience.waited()) log(`the busy host answered after ${Date.now() - began} ms`);
    if (result.text) {
      h.stdout(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: result.text } }));
    }
  } catch (e) {
    log(`no context: ${patience.signal.aborted ? (patience.signal.reason as Error).message : (e as Error).message}`);
  } finally {
    patience.stop();
    conn.close();
  }
}

export async function runHook(io: HookIo): Promise<void> {
  const { env } = io;
  const log = (msg: string) => appendLog('hook.log', `${io.event}: ${msg}`, env);
  if (!(HOOK_EVENTS as readonly string[]).includes(io.event)) {
    log('unknown hook event, ignored');
    return;
  }
  const event = io.event as HookEvent;
  const payload = await readPayload(io, log);
  if (!payload) return;
  const cwd = str(payload.cwd) ?? io.cwd;
  // The local project file is looked up from the session's cwd.
  const vault = hookVault(io, cwd, log);
  if (!vault) return;
  const call: HookCall = { event, payload, cwd, sessionId: str(payload.session_id) ?? 'unknown', state: vaultState(vault, env), env, config: io.config, log, stdout: io.stdout };
  if (isSpoolEvent(call.event)) await spoolEvent({ ...call, event: call.event });
  else await injectContext({ ...call, event: call.event });
}
