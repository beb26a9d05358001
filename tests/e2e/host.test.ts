// The host daemon as a real process: election, the socket's access rules, --stop, idle exit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cliPath, runCli } from '../helpers/cli.js';
import { alive, makeSandbox, waitFor, type Sandbox, type TestHostOptions } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { PROTOCOL_VERSION } from '../../src/core/protocol/version.js';

function sockDir(sb: Sandbox): string {
  return path.join(sb.env.XDG_RUNTIME_DIR!, 'engram');
}
function sockFile(sb: Sandbox): string | undefined {
  const dir = sockDir(sb);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.sock')).map((n) => path.join(dir, n))[0] : undefined;
}
function lockFile(sb: Sandbox): string {
  const vaults = path.join(sb.engramHome, 'vaults');
  return path.join(vaults, fs.readdirSync(vaults)[0], 'host.lock');
}

/** Sends raw lines and collects what comes back until the host closes the connection (or 2 s pass). */
/**
 * Sends `lines` on a fresh connection; resolves when the host closes it, or once `until` holds for the replies so far
 * (a signal, not a fixed wait: a loaded machine can take seconds to read a large frame; the test's timeout bounds it).
 */
function rawExchange(socket: string, lines: string[], until?: (replies: { id?: unknown }[]) => boolean): Promise<{ replies: unknown[]; closed: boolean; error?: string }> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    let buf = '';
    let closed = false;
    let error: string | undefined;
    const replies = () => buf.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: unknown });
    const done = () => {
      s.destroy();
      resolve({ replies: replies(), closed, error });
    };
    s.on('data', (d) => {
      buf += d.toString();
      if (until && buf.endsWith('\n') && until(replies())) done();
    });
    s.on('close', () => {
      closed = true;
      done();
    });
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    s.on('connect', () => {
      for (const l of lines) s.write(`${l}\n`);
    });
  });
}

const replyTo = (id: number) => (replies: { id?: unknown }[]) => replies.some((r) => r.id === id);

async function startHost(sb: Sandbox, options?: TestHostOptions) {
  const child = sb.serve({}, options);
  await waitFor(() => sockFile(sb), 10_000, 'the socket');
  return child;
}

describe('engram serve', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
    sb.writeNote('Notes/Hello.md', '# Hello\nA note.\n');
  });
  afterEach(async () => sb.cleanup());

  it('binds a 0600 socket in a 0700 folder with a 0600 token', async () => {
    await startHost(sb);
    const sock = sockFile(sb)!;
    expect(fs.statSync(sock).mode & 0o777).toBe(0o600);
    expect(fs.statSync(sockDir(sb)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(sb.engramHome, 'token')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(sb.engramHome, 'token'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a second serve exits 0 with a message and does not steal the socket', async () => {
    const first = await startHost(sb);
    const inode = fs.statSync(sockFile(sb)!).ino;
    const second = runCli(['serve', '--foreground', '--vault', sb.vault], { env: sb.env, timeout: 15_000 });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/already serves/);
    expect(fs.statSync(sockFile(sb)!).ino).toBe(inode);
    expect(alive(first.pid!)).toBe(true);
    const bg = runCli(['serve', '--vault', sb.vault], { env: sb.env, timeout: 15_000 });
    expect(bg.code).toBe(0);
    expect(bg.stdout).toMatch(new RegExp(`already serves .*pid ${first.pid}`));
  });

  it('two (here five) racing starters never produce two hosts', async () => {
    const kids = Array.from({ length: 5 }, () => spawn(process.execPath, [cliPath, 'serve', '--foreground', '--vault', sb.vault], { env: sb.env, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] }));
    sb.children.push(...kids);
    // Four starters lose and exit (however long a loaded machine takes to start them); the fifth keeps hosting. Two
    // hosts would leave fewer than four to exit, and the wait fails.
    const exited = () => kids.filter((k) => k.exitCode !== null || k.signalCode !== null);
    await waitFor(() => exited().length >= 4, 60_000, 'four starters to lose and exit');
    const exits = kids.map((k) => k.exitCode);
    const running = kids.filter((k) => k.exitCode === null && k.signalCode === null);
    expect(running).toHaveLength(1);
    expect(exits.filter((c) => c === 0)).toHaveLength(4);
    const lock = JSON.parse(fs.readFileSync(lockFile(sb), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(running[0].pid);
  });

  it('takes over a stale lock left by a dead host', async () => {
    fs.mkdirSync(path.join(sb.engramHome, 'vaults'), { recursive: true });
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const { vaultKey } = await import('../../sidecar/hosting/paths.js');
    const dir = path.join(sb.engramHome, 'vaults', vaultKey(sb.vault));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'host.lock'), JSON.stringify({ format: 1, pid: dead.pid, host: 'daemon', hostname: (await import('node:os')).hostname(), since: 'x' }));
    const child = await startHost(sb);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'host.lock'), 'utf8')).pid).toBe(child.pid);
  });

  // A lock written by an older version or by hand (no hostname, no format, no start time, a bare pid) never stops
  // capture for good: its pid is gone, so it is stale whatever its fields.
  for (const [name, lock] of [
    ['no hostname', (pid: number) => JSON.stringify({ format: 1, pid, host: 'daemon', since: 'x' })],
    ['the older format (pid and since only)', (pid: number) => JSON.stringify({ pid, since: 'x' })],
    ['an empty hostname', (pid: number) => JSON.stringify({ format: 1, pid, host: 'daemon', hostname: '', since: 'x' })],
    ['a bare pid', (pid: number) => `${pid}\n`],
  ] as const) {
    it(`takes over a dead host's lock with ${name}`, async () => {
      const dead = spawn(process.execPath, ['-e', '0']);
      await new Promise((r) => dead.on('exit', r));
      const { vaultKey } = await import('../../sidecar/hosting/paths.js');
      const dir = path.join(sb.engramHome, 'vaults', vaultKey(sb.vault));
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'host.lock');
      fs.writeFileSync(file, lock(dead.pid!));
      // Older than a starter's half-written lock would be.
      fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const child = await startHost(sb);
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(child.pid);
    });
  }

  it('refuses a wrong token, garbage and anything but hello first; serves a correct hello', async () => {
    await startHost(sb);
    const sock = sockFile(sb)!;
    const token = fs.readFileSync(path.join(sb.engramHome, 'token'), 'utf8').trim();
    const hello = (t: string, v = '1.0') => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token: t, protocolVersion: v } });
    const wrong = await rawExchange(sock, [hello('0'.repeat(64)), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'status', params: {} })]);
    expect(wrong.closed).toBe(true);
    expect(JSON.stringify(wrong.replies)).toMatch(/wrong token/);
    expect(JSON.stringify(wrong.replies)).not.toMatch(/queue/);
    const garbage = await rawExchange(sock, ['GET / HTTP/1.1', hello(token)]);
    expect(garbage.closed).toBe(true);
    expect(JSON.stringify(garbage.replies)).not.toMatch(/protocolVersion":"1/);
    const statusFirst = await rawExchange(sock, [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: {} })]);
    expect(statusFirst.closed).toBe(true);
    const major = await rawExchange(sock, [hello(token, '2.0')]);
    expect(major.closed).toBe(true);
    expect(JSON.stringify(major.replies)).toMatch(/update the host/);
    const ok = await rawExchange(sock, [hello(token), 'not json', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'nope' }), JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'recall', params: { query: 5 } }), JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: {} })], (r) => r.length >= 5);
    const byId = Object.fromEntries((ok.replies as { id: number | null; result?: unknown; error?: { code: number } }[]).map((r) => [String(r.id), r]));
    expect(byId['1'].result).toMatchObject({ protocolVersion: PROTOCOL_VERSION, host: 'daemon' });
    expect(byId.null.error?.code).toBe(-32700);
    expect(byId['3'].error?.code).toBe(-32601);
    expect(byId['4'].error?.code).toBe(-32602);
    expect(byId['5'].result).toEqual({ ok: true });
  });

  it('closes a connection that sends an endless frame, and keeps serving others', async () => {
    const child = await startHost(sb);
    const token = fs.readFileSync(path.join(sb.engramHome, 'token'), 'utf8').trim();
    const hello = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token, protocolVersion: '1.0' } });
    const huge = await rawExchange(sockFile(sb)!, [hello, `{"jsonrpc":"2.0","id":2,"method":"recall","params":{"query":"${'x'.repeat(3_000_000)}`]);
    expect(huge.closed).toBe(true);
    expect(alive(child.pid!)).toBe(true);
    const ok = await rawExchange(sockFile(sb)!, [hello, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: {} })], replyTo(2));
    expect(JSON.stringify(ok.replies), `closed: ${ok.closed}, error: ${ok.error}`).toContain('"ok":true');
  });

  it('--stop shuts the host down cleanly and releases lock and socket', async () => {
    const child = await startHost(sb);
    const r = runCli(['serve', '--stop', '--vault', sb.vault], { env: sb.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/stopped/);
    await waitFor(() => !alive(child.pid!), 10_000, 'exit');
    expect(sockFile(sb)).toBeUndefined();
    expect(fs.existsSync(lockFile(sb))).toBe(false);
    expect(fs.readdirSync(path.join(sb.engramHome, 'logs')).some((n) => n.startsWith('host-'))).toBe(true);
  });

  it('host.release: the host saves its snapshot, releases socket and lock, and exits (handover)', async () => {
    const child = await startHost(sb);
    const sock = sockFile(sb)!;
    const token = fs.readFileSync(path.join(sb.engramHome, 'token'), 'utf8').trim();
    // Wait for the index to be up, so there is a snapshot to write.
    await waitFor(() => JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout).host?.index?.ready, 10_000, 'index');
    const r = await rawExchange(sock, [
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token, protocolVersion: '1.0', client: 'plugin' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'host.release', params: { reason: 'Obsidian started' } }),
    ], replyTo(2));
    expect(JSON.stringify(r.replies)).toMatch(/"releasing":true/);
    await waitFor(() => !alive(child.pid!), 10_000, 'exit');
    expect(fs.existsSync(lockFile(sb))).toBe(false);
    expect(sockFile(sb)).toBeUndefined();
    expect(fs.statSync(path.join(path.dirname(lockFile(sb)), 'snapshot')).size).toBeGreaterThan(0);
  });

  it('a client with a newer protocol major that asks to take over makes the older host exit', async () => {
    const child = await startHost(sb);
    const token = fs.readFileSync(path.join(sb.engramHome, 'token'), 'utf8').trim();
    const r = await rawExchange(sockFile(sb)!, [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token, protocolVersion: '2.0', takeover: true } })], replyTo(1));
    expect(JSON.stringify(r.replies)).toMatch(/client-newer/);
    await waitFor(() => !alive(child.pid!), 10_000, 'exit');
    const cli = runCli(['status'], { env: sb.env });
    expect(cli.stdout).toMatch(/not running/);
  });

  it('exits after the idle time', async () => {
    const child = await startHost(sb, { idleMs: 1500 });
    await waitFor(() => !alive(child.pid!), 10_000, 'idle exit');
    expect(fs.existsSync(lockFile(sb))).toBe(false);
  });
});
