// Recovers by itself (issue 12): set-aside events come back when their cause is gone, a full $ENGRAM_HOME loses an
// event loudly and leaves nothing behind, a zombie host is dead, a burst of hooks starts one host, temp files a kill
// left are removed, logs rotate by size. Real processes, real file systems (tmpfs mounts where we may mount).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli, vanishingEntry } from '../helpers/cli.js';
import { alive, hostListening, makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import { tempPathFor } from '../../sidecar/hosting/temp-files.js';
import { SPOOL_FORMAT, writeSpoolEntry } from '../../sidecar/hosting/spool-writer.js';
import { failEntries } from '../../sidecar/hosting/spool.js';
import { LOG_KEEP, LOG_MAX_BYTES } from '../../sidecar/hosting/log.js';
import { hookBurst } from '../helpers/hook-burst.js';
import { canMount, fill, mountTmpfs, remount } from '../helpers/tmpfs.js';

type Check = { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string };

const SESSION = '33333333-cccc-4ccc-8ccc-000000000001';
const fixture = path.join(repoRoot, 'tests/fixtures/extract/markers-a.jsonl');

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(f));
    else out.push(f);
  }
  return out;
}
function jsonIn(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
}
function runs(sb: Sandbox): { sessionId: string; outcome: string }[] {
  try {
    return (JSON.parse(fs.readFileSync(path.join(vaultState(sb.vault, sb.env).dir, 'ledger.json'), 'utf8')) as { runs?: { sessionId: string; outcome: string }[] }).runs ?? [];
  } catch {
    return [];
  }
}
function doctor(sb: Sandbox, args: string[] = []): { code: number; checks: Check[]; stderr: string } {
  const r = runCli(['doctor', '--json', ...args], { env: sb.env });
  return { code: r.code, checks: JSON.parse(r.stdout) as Check[], stderr: r.stderr };
}
const check = (checks: Check[], name: string) => checks.find((c) => c.name === name)!;
/** A pid that certainly belongs to no process now (a child that has exited and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}
function hook(sb: Sandbox, event: string, payload: unknown, entry?: string) {
  return runCli(['hook', event], { env: sb.env, input: JSON.stringify(payload), entry });
}

// Each waits for the host's own retry (up to 40 s per step on a loaded machine).
describe('recovers by itself', { timeout: 120_000 }, () => {
  let sb: Sandbox;
  let transcript: string;
  const mounts: string[] = [];
  const extra: ChildProcess[] = [];
  const payload = (event = 'Stop', session = SESSION) => ({ session_id: session, transcript_path: transcript, cwd: sb.root, hook_event_name: event });

  beforeEach(() => {
    sb = makeSandbox();
    const dir = path.join(sb.home, '.claude', 'projects', '-recovery');
    fs.mkdirSync(dir, { recursive: true });
    transcript = path.join(dir, `${SESSION}.jsonl`);
    fs.copyFileSync(fixture, transcript);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, backend: 'rules' }));
  });
  afterEach(async () => {
    for (const c of extra.splice(0)) c.kill('SIGKILL');
    await sb.cleanup().catch(() => undefined);
    for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
  });

  it('a ledger damaged while the host runs: the host sets it aside, starts a new one and extracts the session', async () => {
    const state = vaultState(sb.vault, sb.env);
    await hostListening(sb, sb.serve({}, { sweepMs: 300 }));
    fs.writeFileSync(state.ledger, '{"version":1,"sessions":{"x": garbage');
    expect(hook(sb, 'SessionEnd', payload('SessionEnd')).code).toBe(0);
    await waitFor(() => runs(sb).some((r) => r.sessionId === SESSION && /extracted/.test(r.outcome)), 40_000, 'the extraction on a new ledger');
    const aside = fs.readdirSync(state.dir).filter((n) => n.startsWith('ledger.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(state.dir, aside[0]), 'utf8')).toBe('{"version":1,"sessions":{"x": garbage');
    // Nothing waits for a person: no event set aside, doctor all right about the state files.
    expect(jsonIn(path.join(state.spool, 'failed'))).toEqual([]);
    const d = doctor(sb);
    expect(check(d.checks, 'set-aside events').status).toBe('ok');
    expect(check(d.checks, 'state files').status).toBe('ok');
    expect(fs.readFileSync(path.join(sb.engramHome, 'logs', `host-${state.key}.log`), 'utf8')).toContain(`the ledger was damaged: set aside as ${path.join(state.dir, aside[0])}`);
  });

  it('a ledger found damaged at host start is set aside at once', async () => {
    const state = vaultState(sb.vault, sb.env);
    fs.mkdirSync(state.dir, { recursive: true });
    fs.writeFileSync(state.ledger, 'not json at all');
    await hostListening(sb, sb.serve({}, { sweepMs: 300 }));
    await waitFor(() => !fs.existsSync(state.ledger) || fs.readFileSync(state.ledger, 'utf8') !== 'not json at all', 20_000, 'the ledger set aside');
    expect(fs.readdirSync(state.dir).filter((n) => n.startsWith('ledger.json.damaged-'))).toHaveLength(1);
    expect(hook(sb, 'SessionEnd', payload('SessionEnd')).code).toBe(0);
    await waitFor(() => runs(sb).some((r) => r.sessionId === SESSION && /extracted/.test(r.outcome)), 40_000, 'the extraction');
  });

  it('doctor --fix puts set-aside events back and starts a host to take them', async () => {
    const state = vaultState(sb.vault, sb.env);
    // An event a host set aside earlier (a cause doctor cannot judge gone), with no host running now.
    const entry = writeSpoolEntry(state.spool, { format: SPOOL_FORMAT, event: 'SessionEnd', sessionId: SESSION, transcriptPath: transcript, transcriptBytes: fs.statSync(transcript).size, cwd: sb.root, project: 'recovery', spooledAt: new Date().toISOString(), payload: payload('SessionEnd') });
    failEntries(state, [entry], { kind: 'error', message: 'the backend failed', fix: 'see the host log' });
    expect(jsonIn(path.join(state.spool, 'failed'))).toHaveLength(1);
    const r = runCli(['doctor', '--fix'], { env: sb.env });
    expect(r.stdout).toContain('fixed: put 1 set-aside event back in the spool');
    expect(r.stdout).toMatch(/fixed: (started a host|a host is starting)/);
    expect(r.stdout).toMatch(/ok +set-aside events: none/);
    await waitFor(() => runs(sb).some((x) => x.sessionId === SESSION && /extracted/.test(x.outcome)), 30_000, 'the extraction');
  });

  it.skipIf(!canMount)('a read-only vault: set aside as read-only, retried by itself once the vault is writable', async () => {
    mountTmpfs(sb.vault, '16m');
    mounts.push(sb.vault);
    sb.writeNote('Existing.md', '# Existing\n\nA note.\n');
    remount(sb.vault, 'ro');
    await hostListening(sb, sb.serve({}, { sweepMs: 300 }));
    expect(hook(sb, 'SessionEnd', payload('SessionEnd')).code).toBe(0);
    const state = vaultState(sb.vault, sb.env);
    await waitFor(() => jsonIn(path.join(state.spool, 'failed')).length === 1, 40_000, 'the event set aside');
    const aside = check(doctor(sb).checks, 'set-aside events');
    expect(aside.status).toBe('fail');
    expect(aside.detail).toMatch(/read-only \(/);
    expect(aside.fix).toMatch(/make .* writable/);
    remount(sb.vault, 'rw');
    await waitFor(() => runs(sb).some((r) => r.sessionId === SESSION && /extracted/.test(r.outcome)), 40_000, 'the retried extraction');
    expect(walk(sb.vault).filter((f) => f.endsWith('.md')).length).toBeGreaterThan(1);
  });

  it.skipIf(!canMount)('a full disk under the vault: set aside as disk-full, retried by itself once there is room', async () => {
    mountTmpfs(sb.vault, '8m');
    mounts.push(sb.vault);
    sb.writeNote('Existing.md', '# Existing\n\nA note.\n');
    const filler = fill(sb.vault);
    await hostListening(sb, sb.serve({}, { sweepMs: 300 }));
    expect(hook(sb, 'SessionEnd', payload('SessionEnd')).code).toBe(0);
    const state = vaultState(sb.vault, sb.env);
    await waitFor(() => jsonIn(path.join(state.spool, 'failed')).length === 1, 40_000, 'the event set aside');
    const aside = check(doctor(sb).checks, 'set-aside events');
    expect(aside.detail).toMatch(/1 disk-full/);
    expect(aside.fix).toContain(`df -h ${sb.vault}`);
    // Nothing half-written stays in the vault.
    expect(walk(sb.vault).filter((f) => /engram-tmp/.test(f))).toEqual([]);
    fs.rmSync(filler);
    await waitFor(() => runs(sb).some((r) => r.sessionId === SESSION && /extracted/.test(r.outcome)), 40_000, 'the retried extraction');
    expect(jsonIn(path.join(state.spool, 'failed'))).toEqual([]);
  });

  it.skipIf(!canMount)('a full $ENGRAM_HOME: the hook loses its event loudly, leaves no temp file, and status/doctor say so', () => {
    // State and logs on a 64 KB file system, filled to the last byte.
    const config = fs.readFileSync(path.join(sb.engramHome, 'config.json'));
    mountTmpfs(sb.engramHome, '64k');
    mounts.push(sb.engramHome);
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), config);
    const state = vaultState(sb.vault, sb.env);
    fs.mkdirSync(state.spool, { recursive: true });
    fs.mkdirSync(path.join(sb.engramHome, 'logs'));
    const filler = fill(sb.engramHome);
    const before = new Set(walk(sb.engramHome));

    const r = hook(sb, 'Stop', payload(), vanishingEntry(sb.root));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    // Exactly one thing appeared: the loss notice (its name says when, which event, why). No temp file, no spool
    // entry (hook.log may have been created, empty: not a byte more fits).
    const added = walk(sb.engramHome).filter((f) => !before.has(f) && !(f.endsWith('hook.log') && fs.statSync(f).size === 0));
    expect(added).toHaveLength(1);
    expect(path.basename(added[0])).toMatch(/^lost-event-\d+-Stop-ENOSPC-\d+\.json$/);

    const st = runCli(['status'], { env: sb.env });
    expect(st.stdout).toMatch(/lost {6}1 hook event not saved \(last .*, Stop: the disk holding \$ENGRAM_HOME was full\)/);
    const d = doctor(sb);
    const lost = check(d.checks, 'lost hook events');
    expect(lost.status).toBe('fail');
    expect(lost.fix).toContain(`df -h ${sb.engramHome}`);

    // Still full: --fix keeps the notice. With room again, --fix records it in the log and clears it.
    expect(runCli(['doctor', '--fix'], { env: sb.env }).stdout).toContain('kept 1 lost-event notices');
    fs.rmSync(filler);
    expect(runCli(['doctor', '--fix'], { env: sb.env }).stdout).toContain('cleared 1 lost-event notice');
    expect(check(doctor(sb).checks, 'lost hook events').status).toBe('ok');
    expect(fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8')).toMatch(/lost hook events acknowledged: .* Stop ENOSPC/);
  });

  it('a host killed with -9 and never reaped (a zombie) is dead: the next hook starts a host', async () => {
    // `exec sleep` replaces the shell: the host's parent is then a process that never reaps, like a bad PID 1.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${cliPath}" serve --foreground --vault "${sb.vault}" 2>/dev/null & exec sleep 600`], { env: sb.env, stdio: 'ignore' });
    extra.push(parent);
    const state = vaultState(sb.vault, sb.env);
    const first = await waitFor(() => {
      try {
        const pid = (JSON.parse(fs.readFileSync(state.lock, 'utf8')) as { pid: number }).pid;
        return fs.existsSync(state.socket) ? pid : undefined;
      } catch {
        return undefined;
      }
    }, 20_000, 'the first host');
    process.kill(first, 'SIGKILL');
    await waitFor(() => fs.readFileSync(`/proc/${first}/stat`, 'utf8').split(') ')[1][0] === 'Z', 5000, 'a zombie');
    expect(alive(first)).toBe(true); // kill(pid, 0) still answers for a zombie

    expect(hook(sb, 'UserPromptSubmit', { session_id: SESSION, cwd: sb.root, prompt: 'what did we decide about the workspace layout' }).code).toBe(0);
    const second = await waitFor(() => {
      const s = JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout) as { host: { pid: number } | null };
      return s.host?.pid;
    }, 30_000, 'a new host');
    expect(second).not.toBe(first);
    expect(fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8')).toMatch(/no host running .*; started one \(pid \d+\)/);
  });

  it('a stopped host (SIGSTOP) is replaced by the next hook, which still gets its context; status said why', async () => {
    const cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    sb.writeNote('Engram/Projects/acme/Use pnpm workspaces.md', '---\ntype: decision\nproject: acme\nsummary: The acme monorepo uses pnpm workspaces because npm installs took four minutes\nupdated: 2026-11-01T10:00:00+00:00\n---\nWe moved the acme monorepo from npm to pnpm workspaces.\n');
    const host = sb.serve();
    await hostListening(sb, host);
    const first = host.pid!;
    process.kill(first, 'SIGSTOP');
    extra.push(host);

    const st = JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout) as { host: unknown; whyNoHost?: string };
    expect(st.host).toBeNull();
    expect(st.whyNoHost).toContain(`pid ${first} is stopped (SIGSTOP or a debugger) and answers nothing; the next hook replaces it`);

    const r = runCli(['hook', 'UserPromptSubmit'], { env: sb.env, input: JSON.stringify({ session_id: SESSION, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'why did we move the acme monorepo to pnpm workspaces?' }), timeout: 20_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Use pnpm workspaces');
    await waitFor(() => host.signalCode === 'SIGKILL', 10_000, 'the stopped host killed');
    const second = (JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout) as { host: { pid: number } | null }).host?.pid;
    expect(second).toBeGreaterThan(0);
    expect(second).not.toBe(first);
    expect(fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8')).toMatch(new RegExp(`the host pid ${first} is stopped .*: killed it, a new one starts`));
  });

  it('a config.json broken by hand: capture goes on with the last good configuration, and status names the line', async () => {
    const cfg = path.join(sb.engramHome, 'config.json');
    // A good read keeps the copy (any command reads the configuration).
    expect(runCli(['configure', 'hooks.inject', 'true'], { env: sb.env }).code).toBe(0);
    fs.writeFileSync(cfg, '{\n  "version": 1,\n  "backend": "rules"\n  "hooks": { "inject": true }\n}\n');
    expect(hook(sb, 'SessionEnd', payload('SessionEnd')).code).toBe(0);
    await waitFor(() => runs(sb).some((r) => r.sessionId === SESSION && /extracted/.test(r.outcome)), 40_000, 'the extraction, with the rules backend');
    const st = runCli(['status'], { env: sb.env }).stdout;
    expect(st).toContain(`config    ${cfg}:4:3 is not valid JSON`);
    expect(st).toContain('using the last good configuration');
    const log = fs.readFileSync(path.join(sb.engramHome, 'logs', `host-${vaultState(sb.vault, sb.env).key}.log`), 'utf8');
    expect(log).toContain(`${cfg}:4:3 is not valid JSON`);
  });

  it('a broken config.json with no good copy: status says no host can start, and why', () => {
    fs.rmSync(path.join(sb.engramHome, 'config.last-good.json'), { force: true });
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), '{ "version": 1,\n  "backend": "rules",\n}\n');
    const st = runCli(['status', '--vault', sb.vault], { env: sb.env }).stdout;
    expect(st).toMatch(/host {6}not running; no host can start: the configuration is invalid: .*config\.json:3:1 is not valid JSON/);
  });

  it('20 concurrent hooks with no host start exactly one serve, and every event is extracted', async () => {
    const burst = await hookBurst(sb, 20);
    expect(burst.hostsStarted).toBe(1);
    await waitFor(() => new Set(runs(sb).map((r) => r.sessionId)).size >= 20, 120_000, 'all 20 sessions extracted');
    expect(new Set(runs(sb).map((r) => r.sessionId))).toEqual(new Set(burst.sessions));
    const state = vaultState(sb.vault, sb.env);
    expect(jsonIn(path.join(state.spool, 'failed')).length + jsonIn(path.join(state.spool, 'bad')).length).toBe(0);
  }, 180_000);

  it('a host killed mid snapshot save: the next host removes its temp file (and older leftovers), never a user file', async () => {
    for (let i = 0; i < 30; i++) sb.writeNote(`Projects/Acme/Note ${i}.md`, `# Note ${i}\n\nAbout the acme workspace ${i}.\n`);
    const state = vaultState(sb.vault, sb.env);
    const crashed = sb.serve({ ENGRAM_FAULT: 'before-snapshot-rename' });
    await waitFor(() => crashed.signalCode === 'SIGKILL', 30_000, 'the host to die mid-save');
    const left = fs.readdirSync(state.dir).filter((n) => /^\.snapshot\.engram-tmp-\d+-[0-9a-f]{8}$/.test(n));
    expect(left).toHaveLength(1);
    expect(fs.statSync(path.join(state.dir, left[0])).size).toBeGreaterThan(0);

    // What earlier kills left: an old-style snapshot temp, a note write killed in the user's own folder.
    const dead = deadPid();
    const legacy = path.join(state.dir, `snapshot.${dead}.tmp`);
    fs.writeFileSync(legacy, Buffer.alloc(1024));
    const note = path.join(sb.vault, 'Projects', 'Acme', 'Note 1.md');
    const killedApply = tempPathFor(note).replace(`-${process.pid}-`, `-${dead}-`);
    fs.writeFileSync(killedApply, 'half a note');
    // Not ours to remove: a live writer's temp, and the user's own files.
    const live = tempPathFor(path.join(sb.vault, 'Projects', 'Acme', 'Note 2.md'));
    fs.writeFileSync(live, 'being written');
    const userFiles = [path.join(sb.vault, 'Projects', 'draft.tmp'), path.join(sb.vault, 'Projects', `.notes.${dead}.tmp`), path.join(sb.vault, 'Projects', 'Acme', 'Note 3.md.engram-tmp-1-zz')];
    for (const f of userFiles) fs.writeFileSync(f, 'mine');

    sb.serve();
    await waitFor(() => !fs.existsSync(killedApply) && !fs.existsSync(legacy) && !fs.existsSync(path.join(state.dir, left[0])), 30_000, 'the leftovers removed');
    expect(fs.existsSync(live)).toBe(true);
    for (const f of userFiles) expect(fs.existsSync(f), f).toBe(true);
    await waitFor(() => fs.readFileSync(path.join(sb.engramHome, 'logs', `host-${state.key}.log`), 'utf8').includes('temp files left by a crash'), 5000, 'the log line');
    fs.rmSync(live);
  });

  it('a killed extraction (before-rename) leaves a temp file that the next host start removes', async () => {
    const r = runCli(['extract', transcript, '--backend', 'rules'], { env: { ...sb.env, ENGRAM_FAULT: 'before-rename' } });
    expect(r.code).not.toBe(0);
    // The first write it reaches is a state file's (the window journal) in $ENGRAM_HOME.
    const temps = () => [...walk(sb.vault), ...walk(sb.engramHome)].filter((f) => /^\..+\.engram-tmp-\d+-[0-9a-f]{8}$/.test(path.basename(f)));
    expect(temps()).toHaveLength(1);
    sb.serve();
    await waitFor(() => temps().length === 0, 30_000, 'the temp removed');
  });

  it('logs rotate by size: hook.log and the host log move to .1 … .3, the oldest falls off', async () => {
    const logs = path.join(sb.engramHome, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    const hookLog = path.join(logs, 'hook.log');
    for (let i = 1; i <= LOG_KEEP; i++) fs.writeFileSync(`${hookLog}.${i}`, `generation ${i}\n`);
    fs.writeFileSync(hookLog, 'x'.repeat(LOG_MAX_BYTES));
    expect(runCli(['hook', 'Stop'], { env: sb.env, input: 'not json{' }).code).toBe(0);
    expect(fs.statSync(`${hookLog}.1`).size).toBe(LOG_MAX_BYTES);
    expect(fs.readFileSync(`${hookLog}.2`, 'utf8')).toBe('generation 1\n');
    expect(fs.readFileSync(`${hookLog}.3`, 'utf8')).toBe('generation 2\n');
    expect(fs.existsSync(`${hookLog}.4`)).toBe(false);
    expect(fs.readFileSync(hookLog, 'utf8')).toMatch(/^\S+ Stop: payload is not a JSON object/);

    const state = vaultState(sb.vault, sb.env);
    const hostLog = path.join(logs, `host-${state.key}.log`);
    fs.writeFileSync(hostLog, 'y'.repeat(LOG_MAX_BYTES));
    const host = sb.serve();
    await waitFor(() => fs.existsSync(`${hostLog}.1`) && fs.readFileSync(hostLog, 'utf8').includes('host starting'), 20_000, 'the host log rotated');
    expect(fs.statSync(`${hostLog}.1`).size).toBe(LOG_MAX_BYTES);
    expect(fs.statSync(hostLog).size).toBeLessThan(100_000);
    host.kill('SIGTERM');
  });
});
