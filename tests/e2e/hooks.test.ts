// `engram hook` fed real payloads: spool first, host notified, exactly-once extraction, crash recovery, injection.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli, vanishingEntry } from '../helpers/cli.js';
import { alive, hostListening, makeSandbox, sessionTranscript, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';

const SESSION = '11111111-aaaa-4aaa-8aaa-000000000001';
const fixture = path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl');

function stateDir(sb: Sandbox): string {
  const vaults = path.join(sb.engramHome, 'vaults');
  return path.join(vaults, fs.readdirSync(vaults)[0]);
}
function list(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
}
function notes(sb: Sandbox): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.md')) out.push(f);
    }
  };
  walk(sb.vault);
  return out;
}
function runs(sb: Sandbox): { sessionId: string; outcome: string; notes: number }[] {
  try {
    return (JSON.parse(fs.readFileSync(path.join(stateDir(sb), 'ledger.json'), 'utf8')) as { runs: { sessionId: string; outcome: string; notes: number }[] }).runs;
  } catch {
    return [];
  }
}

function hookAsync(sb: Sandbox, event: string, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, 'hook', event], { env: { ...sb.env, ...env }, cwd: repoRoot });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('exit', (code) => resolve({ code, stdout, ms: Date.now() - t0 }));
    child.stdin.end(JSON.stringify(payload));
  });
}

describe('engram hook', () => {
  let sb: Sandbox;
  let transcript: string;
  const payload = (event: string) => ({ session_id: SESSION, transcript_path: transcript, cwd: path.join(sb.root, 'acme'), hook_event_name: event, reason: 'other' });

  beforeEach(() => {
    sb = makeSandbox();
    fs.mkdirSync(path.join(sb.root, 'acme'));
    transcript = sessionTranscript(sb, SESSION, fixture);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
  });
  afterEach(async () => sb.cleanup());

  it('writes the spool entry first, even when no host can start, and exits 0 silently', () => {
    const r = runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify(payload('SessionEnd')), entry: vanishingEntry(sb.root) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const spooled = list(path.join(stateDir(sb), 'spool'));
    expect(spooled).toHaveLength(1);
    const entry = JSON.parse(fs.readFileSync(path.join(stateDir(sb), 'spool', spooled[0]), 'utf8'));
    expect(entry).toMatchObject({ event: 'SessionEnd', sessionId: SESSION, transcriptBytes: fs.statSync(transcript).size });
  });

  it('exits 0 with nothing on stdout for garbage, unknown events, no vault, and ENGRAM_NESTED', () => {
    for (const [args, input, env] of [
      [['hook', 'Stop'], 'not json{', {}],
      [['hook', 'Bogus'], '{}', {}],
      [['hook'], '{}', {}],
      [['hook', 'SessionEnd'], JSON.stringify({ session_id: 'x' }), { ENGRAM_VAULT: path.join(sb.root, 'nope') }],
      [['hook', 'SessionEnd'], JSON.stringify({ session_id: 'x', transcript_path: transcript }), { ENGRAM_NESTED: '1' }],
    ] as [string[], string, NodeJS.ProcessEnv][]) {
      const r = runCli(args, { env: { ...sb.env, ...env }, input });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toBe('');
    }
    expect(fs.existsSync(path.join(sb.engramHome, 'vaults'))).toBe(false);
    expect(fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8')).toMatch(/not a JSON object/);
  });

  it('starts a host that drains the spool and extracts the session (rules backend)', async () => {
    const r = runCli(['hook', 'SessionEnd'], { env: sb.env, input: JSON.stringify(payload('SessionEnd')) });
    expect(r.code).toBe(0);
    await waitFor(() => runs(sb).some((x) => x.sessionId === SESSION), 20_000, 'an extraction run');
    await waitFor(() => list(path.join(stateDir(sb), 'spool')).length + list(path.join(stateDir(sb), 'claimed')).length === 0, 5000, 'empty spool');
    expect(notes(sb).length).toBeGreaterThanOrEqual(3);
    expect(notes(sb).map((f) => fs.readFileSync(f, 'utf8')).join('\n')).toContain('pnpm workspaces');
  });

  it("a session whose first message opens with Engram's prompt marker is one of its own calls: never extracted", async () => {
    // The marker sits beyond the first 4 KiB, after a long first record, as a real nested call's transcript may have it.
    const lines = fs.readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { content: unknown } });
    const first = lines.find((l) => l.type === 'user')!;
    first.message!.content = `<!-- engram:extraction-prompt -->\n${String(first.message!.content)}`;
    const padding = { type: 'summary', summary: 'x'.repeat(6000), leafUuid: 'pad' };
    fs.writeFileSync(transcript, [padding, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
    sb.serve();
    expect((await hookAsync(sb, 'SessionEnd', payload('SessionEnd'))).code).toBe(0);
    await waitFor(() => runs(sb).some((x) => x.sessionId === SESSION && /Engram's own nested session/.test(x.outcome)), 20_000, 'the skipped run');
    expect(notes(sb)).toEqual([]);
  });

  it('20 concurrent hooks for one session end in one extraction', async () => {
    await hostListening(sb, sb.serve({}, { jobDelayMs: 800 }));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => hookAsync(sb, i % 2 ? 'Stop' : 'SessionEnd', payload(i % 2 ? 'Stop' : 'SessionEnd'))));
    expect(results.every((r) => r.code === 0 && r.stdout === '')).toBe(true);
    await waitFor(() => list(path.join(stateDir(sb), 'spool')).length + list(path.join(stateDir(sb), 'claimed')).length === 0, 20_000, 'empty spool');
    const mine = runs(sb).filter((x) => x.sessionId === SESSION);
    expect(mine.filter((x) => !/covered|skipped/.test(x.outcome))).toHaveLength(1);
    const count = notes(sb).length;
    expect(count).toBeGreaterThanOrEqual(3);
  });

  it('kill -9 of the host mid-job: the job is redone by the next host, nothing duplicated', async () => {
    const first = sb.serve({}, { jobDelayMs: 4000 });
    await hostListening(sb, first);
    expect((await hookAsync(sb, 'PreCompact', payload('PreCompact'))).code).toBe(0);
    await waitFor(() => list(path.join(stateDir(sb), 'claimed')).length === 1, 10_000, 'the job to be claimed');
    process.kill(first.pid!, 'SIGKILL');
    await waitFor(() => !alive(first.pid!), 5000, 'the kill');
    expect(notes(sb)).toHaveLength(0);
    expect(list(path.join(stateDir(sb), 'claimed'))).toHaveLength(1);
    // The next hook finds no host (stale lock), starts one, which returns the claimed entry and redoes it.
    expect((await hookAsync(sb, 'Stop', payload('Stop'))).code).toBe(0);
    await waitFor(() => runs(sb).some((x) => x.sessionId === SESSION && /extracted/.test(x.outcome)), 20_000, 'the redo');
    await waitFor(() => list(path.join(stateDir(sb), 'spool')).length + list(path.join(stateDir(sb), 'claimed')).length === 0, 10_000, 'empty spool');
    const once = notes(sb).map((f) => path.basename(f)).sort();
    // Another SessionEnd for the same, unchanged session adds nothing.
    expect((await hookAsync(sb, 'SessionEnd', payload('SessionEnd'))).code).toBe(0);
    await waitFor(() => list(path.join(stateDir(sb), 'spool')).length + list(path.join(stateDir(sb), 'claimed')).length === 0, 10_000, 'empty spool');
    expect(notes(sb).map((f) => path.basename(f)).sort()).toEqual(once);
    const ids = notes(sb).map((f) => /engram_id: (\S+)/.exec(fs.readFileSync(f, 'utf8'))?.[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('Stop re-queues a session only when it grew enough since its last extraction', async () => {
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules', hooks: { stop_min_new_turns: 4, stop_min_new_bytes: 1_000_000 } }));
    sb.serve();
    await waitFor(() => fs.existsSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')) && fs.readdirSync(path.join(sb.env.XDG_RUNTIME_DIR!, 'engram')).length > 0, 10_000, 'socket');
    await hookAsync(sb, 'SessionEnd', payload('SessionEnd'));
    await waitFor(() => runs(sb).some((x) => /extracted/.test(x.outcome)), 20_000, 'first extraction');
    const line = fs.readFileSync(transcript, 'utf8').trim().split('\n')[0];
    fs.appendFileSync(transcript, `${line}\n`);
    await hookAsync(sb, 'Stop', payload('Stop'));
    await waitFor(() => runs(sb).length >= 2, 10_000, 'second run');
    expect(runs(sb).at(-1)!.outcome).toMatch(/skipped: grew 1 records/);
    for (let i = 0; i < 4; i++) fs.appendFileSync(transcript, `${line}\n`);
    await hookAsync(sb, 'Stop', payload('Stop'));
    await waitFor(() => runs(sb).length >= 3, 10_000, 'third run');
    expect(runs(sb).at(-1)!.outcome).not.toMatch(/skipped/);
  });
});

describe('jobs that cannot finish', () => {
  let sb: Sandbox;
  let transcript: string;
  beforeEach(() => {
    sb = makeSandbox();
    transcript = sessionTranscript(sb, SESSION, fixture);
  });
  afterEach(async () => sb.cleanup());
  const end = () => hookAsync(sb, 'SessionEnd', { session_id: SESSION, transcript_path: transcript, cwd: sb.root, hook_event_name: 'SessionEnd' });

  it('a spent budget defers the event (kept, not marked extracted) instead of dropping it', async () => {
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'claude', budget: { tokens_per_day: 0 } }));
    sb.serve();
    await end();
    await waitFor(() => runs(sb).some((r) => /deferred/.test(r.outcome)), 20_000, 'a deferred run');
    expect(list(path.join(stateDir(sb), 'spool', 'deferred'))).toHaveLength(1);
    expect(notes(sb)).toHaveLength(0);
    const st = JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout);
    expect(st.host.queue.deferred).toBe(1);
  });

  it('an extraction that keeps failing is retried, then set aside in spool/failed/', async () => {
    // Not a transcript Engram can read: every attempt fails.
    fs.writeFileSync(transcript, 'this is not a transcript\n'.repeat(50));
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
    await hostListening(sb, sb.serve({}, { sweepMs: 300 }));
    await end();
    // Three attempts, each on a sweep: seconds on a quiet machine, far more on a loaded CI one.
    await waitFor(() => list(path.join(stateDir(sb), 'spool', 'failed')).length === 1, 75_000, 'the entry set aside');
    expect(list(path.join(stateDir(sb), 'spool'))).toHaveLength(0);
    expect(list(path.join(stateDir(sb), 'claimed'))).toHaveLength(0);
    const st = JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout);
    expect(st.host.queue).toMatchObject({ failed: 3, failedEvents: 1 });
  }, 90_000);
});
