// A host that runs but is slow to answer (a large vault's first read, a machine under load) still gives a new session
// its project's notes: SessionStart, once a session, waits for a busy host as long as it would for one it started,
// while a stopped host is judged at the configured deadline and replaced. UserPromptSubmit keeps its short deadline.
// The busy host here is a real HostServer in this process that answers `context` only once the hook has said, in
// hook.log, that its configured deadline passed: no clock decides the outcome.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, runCliAsync } from '../helpers/cli.js';
import { hostListening, makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import { acquireHostLock, releaseHostLock } from '../../sidecar/hosting/election.js';
import { startHeartbeat } from '../../sidecar/hosting/hung-host.js';
import { HostServer, ensureToken } from '../../sidecar/hosting/server.js';

type HookOut = { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
const NOTE_TEXT = '<engram-memory note="test">\nNotes about this project: use pnpm workspaces\n</engram-memory>';

describe('context from a host that is running but busy', () => {
  let sb: Sandbox;
  let cwd: string;
  const stops: (() => Promise<void> | void)[] = [];
  const hookLog = () => {
    const f = path.join(sb.engramHome, 'logs', 'hook.log');
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
  };
  const hook = (event: string, session: string, extra: Record<string, unknown> = {}) =>
    runCliAsync(['hook', event], { env: sb.env, input: JSON.stringify({ session_id: session, cwd, hook_event_name: event, source: 'startup', ...extra }), timeout: 30_000 });

  /** Holds the vault as a host (Obsidian's: never killed by a hook) and answers `context` only once `ready()` holds. */
  async function busyHost(ready: () => boolean): Promise<{ asked: () => number }> {
    const state = vaultState(sb.vault, sb.env);
    fs.mkdirSync(state.dir, { recursive: true });
    expect(acquireHostLock(state.lock, 'plugin').won).toBe(true);
    const stopBeat = startHeartbeat(state.dir);
    let asked = 0;
    const server = new HostServer({
      socket: state.socket,
      token: ensureToken(sb.env),
      hello: () => ({ host: 'plugin', pid: process.pid, vault: state.vault }),
      handlers: {
        context: async () => {
          asked++;
          await waitFor(ready, 20_000, 'the hook to say its configured deadline passed');
          return { text: NOTE_TEXT, items: [{ path: 'Engram/Projects/acme/Use pnpm workspaces.md', title: 'Use pnpm workspaces', why: ['note of project acme'], score: 1 }] };
        },
      },
      onActivity: () => {},
      log: () => {},
    });
    await server.listen();
    stops.push(async () => {
      await server.close();
      stopBeat();
      releaseHostLock(state.lock);
    });
    return { asked: () => asked };
  }

  beforeEach(() => {
    sb = makeSandbox();
    cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    // Short configured deadlines keep the test quick; what is judged is what happens after them.
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules', hooks: { session_start_deadline_ms: 500, prompt_deadline_ms: 300 } }));
  });
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
    await sb.cleanup();
  });

  it('SessionStart waits past its configured deadline for a busy host and injects what it answers', async () => {
    const host = await busyHost(() => /SessionStart: the host has not answered in 500 ms but is running \(busy\)/.test(hookLog()));
    const r = await hook('SessionStart', 'busy-start');
    expect(r.code).toBe(0);
    expect(host.asked()).toBe(1);
    expect(r.stdout, hookLog()).not.toBe('');
    expect((JSON.parse(r.stdout) as HookOut).hookSpecificOutput.additionalContext).toBe(NOTE_TEXT);
    expect(hookLog()).toMatch(/SessionStart: the busy host answered after \d+ ms/);
  });

  it('UserPromptSubmit keeps its configured deadline: a busy host is not waited for', async () => {
    let gaveUp = false;
    const host = await busyHost(() => gaveUp);
    const r = await hook('UserPromptSubmit', 'busy-prompt', { prompt: 'why pnpm workspaces?' });
    gaveUp = true;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(host.asked()).toBe(1);
    expect(hookLog()).toMatch(/UserPromptSubmit: no context: the host did not answer context in time/);
    expect(hookLog()).not.toMatch(/UserPromptSubmit: the host has not answered/);
  });

  it('a stopped host is not waited for: SessionStart replaces it at the configured deadline and still gets the notes', async () => {
    sb.writeNote('Engram/Projects/acme/Use pnpm workspaces.md', '---\ntype: decision\nproject: acme\nsummary: The acme monorepo uses pnpm workspaces\nupdated: 2026-11-01T10:00:00+00:00\n---\nWe moved the acme monorepo from npm to pnpm workspaces.\n');
    const child = sb.serve();
    await hostListening(sb, child);
    process.kill(child.pid!, 'SIGSTOP');
    const r = await hook('SessionStart', 'stopped-start');
    expect(r.code).toBe(0);
    expect(r.stdout, hookLog()).toContain('Use pnpm workspaces');
    expect(hookLog()).toMatch(new RegExp(`SessionStart: the host pid ${child.pid} is stopped .*: killed it, a new one starts`));
    expect(hookLog()).not.toMatch(/SessionStart: the host has not answered/);
    await waitFor(() => child.signalCode === 'SIGKILL', 10_000, 'the stopped host killed');
    expect(runCli(['status'], { env: sb.env }).code).toBe(0);
  });
});
