// `engram hook <Event>`: the code on every prompt's critical path. Client-only imports (no engine, index, model).
// Stop/PreCompact/SessionEnd: spool first, then nudge the host. SessionStart/UserPromptSubmit: ask for context
// within a deadline. Always exit 0; stdout carries only the hookSpecificOutput JSON.
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_EVENTS, type HookEvent } from '../../src/core/protocol/messages.js';
import { hostSupports } from '../../src/core/protocol/version.js';
import { HostConnection, isNoHost } from '../hosting/connection.js';
import { engramHome, logsDir, vaultState } from '../hosting/paths.js';
import { appendLog } from '../hosting/log.js';
import { captureEnabled, clientSettings, resolveProject, resolveVault } from '../hosting/settings.js';
import { startHostDetached } from '../hosting/start-host.js';
import { SPOOL_FORMAT, lossCause, recordLostEvent, writeSpoolEntry } from '../hosting/spool-writer.js';

export interface HookIo {
  event: string;
  vaultOption?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  readStdin: () => Promise<string>;
  stdout: (text: string) => void;
}

const SPOOL_EVENTS = ['Stop', 'PreCompact', 'SessionEnd'] as const;

/** An event the hook spools for capture (the others ask the host for context). */
function isSpoolEvent(e: HookEvent): e is (typeof SPOOL_EVENTS)[number] {
  return (SPOOL_EVENTS as readonly string[]).includes(e);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

async function nudgeHost(socket: string, vault: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const conn = await HostConnection.open({ socket, env, deadline: Date.now() + 250, client: 'hook' });
    await conn.send('spool.notify', {});
    conn.close();
  } catch (e) {
    if (isNoHost(e)) startHostDetached(vault, env);
    else appendLog('hook.log', `could not notify the host: ${(e as Error).message}`, env);
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
  const raw = await io.readStdin();
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    payload = parsed as Record<string, unknown>;
  } catch (e) {
    log(`payload is not a JSON object (${(e as Error).message}); nothing done`);
    return;
  }
  const cwd = str(payload.cwd) ?? io.cwd;
  // --vault is relative to where the hook runs; the local project file is looked up from the session's cwd.
  const resolved = io.vaultOption ? { vault: path.resolve(io.cwd, io.vaultOption) } : resolveVault({ cwd, env });
  if (!resolved) {
    log('no vault configured (set one with `engram setup` or `engram configure vault_path …`); nothing done');
    return;
  }
  if (!fs.existsSync(resolved.vault)) {
    log(`vault path does not exist: ${resolved.vault}; nothing done`);
    return;
  }
  const state = vaultState(resolved.vault, env);
  const sessionId = str(payload.session_id) ?? 'unknown';

  if (isSpoolEvent(event)) {
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
      writeSpoolEntry(state.spool, {
        format: SPOOL_FORMAT,
        event,
        sessionId,
        transcriptPath,
        transcriptBytes,
        cwd,
        project: resolveProject(cwd),
        spooledAt: new Date().toISOString(),
        payload,
      });
    } catch (e) {
      // Lost (a full disk, a read-only $ENGRAM_HOME): say so where `engram status` and `engram doctor` look, even
      // when the log cannot grow. The session's next Stop covers its transcript up to then.
      const code = (e as NodeJS.ErrnoException).code ?? 'ERROR';
      const marker = recordLostEvent([state.dir, logsDir(env), engramHome(env)], { event, sessionId, error: e });
      const logged = appendLog('hook.log', `${event}: event LOST for session ${sessionId}: ${lossCause(code)} (${(e as Error).message})`, env);
      if (!marker && !logged) process.stderr.write(`engram: hook event ${event} lost: ${lossCause(code)} (${(e as Error).message})\n`);
      return;
    }
    await nudgeHost(state.socket, state.vault, env);
    return;
  }

  const settings = clientSettings(env);
  if (!settings.inject) return;
  const start = event === 'SessionStart';
  const deadline = Date.now() + (start ? settings.session_start_deadline_ms : settings.prompt_deadline_ms);
  let conn: HostConnection;
  try {
    conn = await HostConnection.open({ socket: state.socket, env, deadline, client: 'hook' });
  } catch (e) {
    if (isNoHost(e)) {
      // Start one for the next prompt; this one goes without context rather than wait.
      const pid = startHostDetached(state.vault, env);
      log(`no host running (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); ${pid ? `started one (pid ${pid})` : 'one is starting'}`);
    } else log(`no context: ${(e as Error).message}`);
    return;
  }
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
    }, deadline);
    if (result.text) {
      io.stdout(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: result.text } }));
    }
  } catch (e) {
    log(`no context: ${(e as Error).message}`);
  } finally {
    conn.close();
  }
}
