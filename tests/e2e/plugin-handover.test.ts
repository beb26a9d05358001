// @vitest-environment happy-dom
// Handover with real processes: a daemon (`engram serve`) hosts the vault; the built plugin (main.js over the mocks'
// app, its vault a real folder, in this test process) opens it and the daemon hands over; real `engram hook`
// processes then get context from and spool to the plugin; the plugin unloads; the next hook starts a daemon again.
// Every session is extracted exactly once across the three hosts, and nothing spooled is lost.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { alive, hostListening, makeSandbox, sessionTranscript, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { loadBundle } from '../helpers/plugin-bundle.js';
import { pluginApp } from '../helpers/plugin-app.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import { readLock } from '../../sidecar/hosting/election.js';

// The session ids inside the fixtures (notes carry them as engram_session).
const SESSIONS = ['11111111-aaaa-4aaa-8aaa-000000000001', '22222222-bbbb-4bbb-8bbb-000000000002', '33333333-cccc-4ccc-8ccc-000000000003'];
const FIXTURES = ['markers-a.jsonl', 'markers-b.jsonl', 'markers-c.jsonl'].map((f) => path.join(repoRoot, 'tests/fixtures/extract', f));

function hook(sb: Sandbox, event: string, payload: unknown): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, 'hook', event], { env: sb.env, cwd: repoRoot });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify(payload));
  });
}

function notes(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const f = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...notes(f));
    else if (e.name.endsWith('.md')) out.push(f);
  }
  return out;
}

/** The session each note Engram extracted came from. */
function extractedSessions(vault: string): string[] {
  return notes(vault).map((f) => /engram_session: (\S+)/.exec(fs.readFileSync(f, 'utf8'))?.[1]).filter((s): s is string => Boolean(s));
}

function spooled(sb: Sandbox): number {
  const dir = vaultState(sb.vault, sb.env).dir;
  return ['spool', 'claimed'].reduce((n, d) => n + (fs.existsSync(path.join(dir, d)) ? fs.readdirSync(path.join(dir, d)).filter((x) => x.endsWith('.json')).length : 0), 0);
}

let sb: Sandbox;
/** The plugin under test, unloaded before the sandbox kills the hosts its locks name (this process, else). */
let loaded: { onunload(): void; unloaded: Promise<void> } | undefined;
const saved = { ...process.env };
beforeEach(() => {
  sb = makeSandbox();
  fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
  // The plugin takes its environment from its process (Obsidian's): the sandbox's.
  for (const k of ['HOME', 'ENGRAM_HOME', 'XDG_RUNTIME_DIR', 'CLAUDE_CONFIG_DIR']) process.env[k] = sb.env[k];
});
afterEach(async () => {
  if (loaded) {
    loaded.onunload();
    await loaded.unloaded;
    loaded = undefined;
  }
  for (const k of ['HOME', 'ENGRAM_HOME', 'XDG_RUNTIME_DIR', 'CLAUDE_CONFIG_DIR']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await sb.cleanup();
});

describe('one host per vault, handed over both ways', () => {
  it('daemon → plugin → daemon: hooks get context from whichever hosts, each session extracted once', async () => {
    const state = vaultState(sb.vault, sb.env);
    const transcripts = SESSIONS.map((id, i) => sessionTranscript(sb, id, FIXTURES[i]));
    // The sessions ran in the project `acme` (their notes are that project's; recall serves them there).
    const cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    const end = (i: number) => hook(sb, 'SessionEnd', { session_id: SESSIONS[i], transcript_path: transcripts[i], cwd, hook_event_name: 'SessionEnd' });

    // 1. A daemon hosts and extracts session A.
    const daemon = sb.serve();
    await hostListening(sb, daemon);
    expect((await end(0)).code).toBe(0);
    await waitFor(() => extractedSessions(sb.vault).includes(SESSIONS[0]) && spooled(sb) === 0, 20_000, 'the daemon to extract session A');

    // 2. Obsidian opens the vault: the plugin asks the daemon to hand over, and binds.
    const bundle = loadBundle();
    const { app, folder, manifest, layoutReady } = pluginApp(path.dirname(sb.vault), {});
    expect(folder.root).toBe(sb.vault);
    const plugin = new bundle.Plugin(app, manifest);
    loaded = plugin;
    await plugin.onload();
    layoutReady();
    await waitFor(() => readLock(state.lock)?.host === 'plugin' && fs.existsSync(state.socket), 30_000, 'the plugin to host');
    await waitFor(() => daemon.exitCode !== null, 10_000, 'the daemon to exit');
    expect(readLock(state.lock)?.pid).toBe(process.pid);
    await waitFor(() => plugin.engramHost?.engine?.ready, 20_000, 'the plugin index');

    // 3. A real hook gets its context from the plugin.
    const prompt = await hook(sb, 'UserPromptSubmit', { session_id: 'prompt-1', cwd, hook_event_name: 'UserPromptSubmit', prompt: 'do we use pnpm workspaces or npm here?' });
    expect(prompt.code).toBe(0);
    const context = (JSON.parse(prompt.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toMatch(/pnpm/i);

    // 4. Session B ends while the plugin hosts: extracted by the plugin, through Obsidian's Vault.create.
    const create = vi.spyOn(folder.vault, 'create');
    expect((await end(1)).code).toBe(0);
    await waitFor(() => extractedSessions(sb.vault).includes(SESSIONS[1]) && spooled(sb) === 0, 20_000, 'the plugin to extract session B');
    expect(create).toHaveBeenCalled();

    // 5. Obsidian closes: the plugin saves and releases; the next hook starts a daemon, which extracts session C.
    plugin.onunload();
    await plugin.unloaded;
    loaded = undefined;
    expect(fs.existsSync(state.lock)).toBe(false);
    expect(fs.existsSync(state.socket)).toBe(false);
    expect((await end(2)).code).toBe(0);
    // Session B ends again, unchanged: the new daemon must not extract it twice.
    expect((await end(1)).code).toBe(0);
    await waitFor(() => extractedSessions(sb.vault).includes(SESSIONS[2]) && spooled(sb) === 0, 30_000, 'a new daemon to extract session C');
    const back = readLock(state.lock);
    expect(back?.host).toBe('daemon');
    expect(back?.pid).not.toBe(process.pid);
    expect(alive(back!.pid)).toBe(true);

    // Exactly once: each session's notes, no engram_id twice, nothing left in the spool.
    const perSession = SESSIONS.map((id) => extractedSessions(sb.vault).filter((s) => s === id).length);
    expect(perSession.every((n) => n > 0)).toBe(true);
    const ids = notes(sb.vault).map((f) => /engram_id: (\S+)/.exec(fs.readFileSync(f, 'utf8'))?.[1]).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
    expect(spooled(sb)).toBe(0);
  });
});
