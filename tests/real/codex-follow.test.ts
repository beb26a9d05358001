// Codex runs Engram's hooks only once trusted (tests/real/codex-hooks.test.ts): once `engram install --agent codex`
// registered Engram, the host follows $CODEX_HOME/sessions and extracts the real Codex CLI's rollouts by itself, each
// part exactly once: a resumed session's rollout grows, and only its new turns are extracted.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vaultState } from '../../sidecar/hosting/paths.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { realCli, realSuiteTitle, runCodex, startFakeResponses, writeCodexConfig } from '../helpers/real-cli.js';

const codex = realCli('codex');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Every note in the vault, by path, with its text. */
function notes(vault: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(vault, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.md')) {
      const file = path.join(e.parentPath, e.name);
      out.set(path.relative(vault, file), fs.readFileSync(file, 'utf8'));
    }
  }
  return out;
}

function notesWith(vault: string, word: string): string[] {
  return [...notes(vault)].filter(([, text]) => text.includes(word)).map(([p]) => p);
}

function rollouts(home: string): string[] {
  const dir = path.join(home, '.codex', 'sessions');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && /^rollout-.*\.jsonl$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

/** Capture's coverage and runs: their part of the vault's ledger. */
function coverage(sb: Sandbox): { capture: Record<string, { bytes: number }>; runs: { sessionId: string; outcome: string; notes: number }[] } {
  const file = path.join(vaultState(sb.vault, sb.env).dir, 'ledger.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { capture: {}, runs: [] };
}

/** A sandbox with a project folder, Engram on the rules backend, and Codex pointed at a fake Responses server. */
async function codexSandbox(finishedAfterSeconds: number): Promise<{ sb: Sandbox; cwd: string; server: Awaited<ReturnType<typeof startFakeResponses>> }> {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  const cwd = path.join(sb.root, 'acme');
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'rules', codex: { finished_after_seconds: finishedAfterSeconds } }));
  const server = await startFakeResponses(() => ({ text: 'Noted.' }));
  cleanups.push(() => server.close());
  writeCodexConfig(sb.home, server);
  return { sb, cwd, server };
}

/** Starts a host and waits until its index is ready. */
async function readyHost(sb: Sandbox): Promise<void> {
  sb.serve();
  await waitFor(() => {
    const r = runCli(['status', '--json'], { env: sb.env });
    return r.code === 0 && (JSON.parse(r.stdout) as { host?: { index?: { ready?: boolean } } | null }).host?.index?.ready;
  }, 20_000, 'a ready host');
}

describe.skipIf('skip' in codex)(realSuiteTitle('codex', 'the host follows Codex rollouts once Codex is registered'), () => {
  const bin = (codex as { bin: string }).bin;

  it('extracts a new rollout, then only the new part of the grown rollout, and never twice', async () => {
    const { sb, cwd, server } = await codexSandbox(2);
    const install = runCli(['install', '--agent', 'codex'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    // Codex gives MCP servers only HOME, PATH and a few more: `engram install --agent codex` puts the sandbox's Engram
    // locations (ENGRAM_HOME, ENGRAM_VAULT, XDG_RUNTIME_DIR) in the block's env itself.
    expect(fs.readFileSync(path.join(sb.home, '.codex', 'config.toml'), 'utf8')).toContain(`ENGRAM_HOME = ${JSON.stringify(sb.engramHome)}`);
    await readyHost(sb);

    const first = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: the acme staging database listens on port 6543 (wombatgate)', server });
    expect(first.code, first.stderr).toBe(0);
    const [rollout] = rollouts(sb.home);
    expect(rollout).toBeDefined();
    await waitFor(() => notesWith(sb.vault, 'wombatgate').length > 0, 60_000, 'a note from the Codex rollout');
    expect(notesWith(sb.vault, 'wombatgate')).toHaveLength(1);

    const sessionId = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollout!)![1]!;
    const before = fs.statSync(rollout!).size;
    const resumed = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: acme deploys need the corp-east VPN profile (quaggaroute)', server, args: ['resume', sessionId] });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(rollouts(sb.home)).toEqual([rollout]); // the same rollout grew
    expect(fs.statSync(rollout!).size).toBeGreaterThan(before);

    await waitFor(() => notesWith(sb.vault, 'quaggaroute').length > 0, 60_000, 'a note from the grown rollout');
    // Wait until the host has covered the whole rollout (the quiet rollout's final pass), then nothing is doubled.
    const size = fs.statSync(rollout!).size;
    await waitFor(() => (coverage(sb).capture[sessionId]?.bytes ?? 0) >= size, 60_000, 'the rollout fully covered');
    expect(notesWith(sb.vault, 'wombatgate')).toHaveLength(1);
    expect(notesWith(sb.vault, 'quaggaroute')).toHaveLength(1);
    // The grown part's note holds only the new fact.
    const [grownNote] = notesWith(sb.vault, 'quaggaroute');
    expect(notes(sb.vault).get(grownNote!)).not.toContain('wombatgate');
    const extracted = coverage(sb).runs.filter((r) => r.sessionId === sessionId && r.notes > 0);
    expect(extracted.reduce((n, r) => n + r.notes, 0)).toBe(2);
  });

  it('a session run right after the install, while a host runs, is captured (followed from the install on)', async () => {
    // A long quiet time: the host looks for Codex's registration only every 15 s.
    const { sb, cwd, server } = await codexSandbox(600);
    await readyHost(sb);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: the acme build cache lives on the nas share (okapistore)', server });
    expect(run.code, run.stderr).toBe(0);
    // Finished sooner from now on (read at each look), so the test need not wait ten minutes.
    expect(runCli(['configure', 'codex.finished_after_seconds', '2'], { env: sb.env }).code).toBe(0);
    await waitFor(() => notesWith(sb.vault, 'okapistore').length > 0, 60_000, 'a note from the session run right after the install');
  });

  it('a session that calls no Engram tool, with no host running, is captured: the MCP server Codex starts starts one', async () => {
    const { sb, cwd, server } = await codexSandbox(2);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    expect((JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout) as { host: unknown }).host).toBeNull();
    // The fake model only answers text: the session calls no tool.
    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: acme release tags are signed with the ops key (ibexsign)', server });
    expect(run.code, run.stderr).toBe(0);
    await waitFor(() => notesWith(sb.vault, 'ibexsign').length > 0, 60_000, 'a note from a session that called no Engram tool');
  });

  it('does not follow Codex rollouts when Codex was never registered', async () => {
    const { sb, cwd, server } = await codexSandbox(1);
    await readyHost(sb);
    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: the acme cache TTL is 90 seconds (lemurcache)', server });
    expect(run.code, run.stderr).toBe(0);
    // Registering afterwards makes the host follow from then on; the host log says when it started following.
    const log = () => fs.readdirSync(path.join(sb.engramHome, 'logs')).map((f) => fs.readFileSync(path.join(sb.engramHome, 'logs', f), 'utf8')).join('\n');
    const install = runCli(['install', '--agent', 'codex'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    await waitFor(() => /codex: following /.test(log()), 30_000, 'the host following Codex');
    expect(notesWith(sb.vault, 'lemurcache')).toEqual([]);
  });
});
