// Codex's own hooks (Codex 0.169 has them, on by default): `engram install --agent codex` writes Engram's hooks into
// $CODEX_HOME/hooks.json beside the MCP server. Codex runs a hook once the user has trusted it in its /hooks screen;
// `--dangerously-bypass-hook-trust` stands in for that trust here (`codex exec` has no screen to give it in). Then the
// real Codex CLI gets the vault's notes in the request it sends the model, from the first session with no host
// running, and a session that calls no Engram tool is captured once, whatever the rollout follower also sees.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { codexHooksList, codexSandbox } from '../helpers/codex-box.js';
import { waitFor } from '../helpers/host.js';
import { allText, realCli, realSuiteTitle, runCodex } from '../helpers/real-cli.js';

const codex = realCli('codex');
/** The user's environment as Codex and the hooks it runs inherit it: this sandbox's Engram locations. */
const engramEnv = (sb: { engramHome: string; vault: string; env: NodeJS.ProcessEnv }) => ({ ENGRAM_HOME: sb.engramHome, ENGRAM_VAULT: sb.vault, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR });
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function notesWith(vault: string, word: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(vault, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.md') && fs.readFileSync(path.join(e.parentPath, e.name), 'utf8').includes(word)) out.push(path.join(e.parentPath, e.name));
  }
  return out;
}


describe.skipIf('skip' in codex)(realSuiteTitle('codex', "Engram through Codex's own hooks"), () => {
  const bin = (codex as { bin: string }).bin;

  it('install writes the hooks; trusted, they inject context and capture a session that calls no Engram tool', async () => {
    // A long quiet time: the rollout follower would capture this session only after ten minutes; the Stop hook does it now.
    const { sb, cwd, server } = await codexSandbox(600, cleanups);
    sb.writeNote('Engram/Projects/acme/Staging database port.md', '---\ntype: decision\nproject: acme\nsummary: The acme staging database listens on port 6543 behind pgbouncer\nupdated: 2026-11-01T10:00:00+00:00\n---\nThe acme staging database listens on port 6543 behind pgbouncer (heronport).\n');

    const install = runCli(['install', '--agent', 'codex'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain('/hooks');
    const hooks = JSON.parse(fs.readFileSync(path.join(sb.home, '.codex', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(Object.keys(hooks.hooks).sort()).toEqual(['PreCompact', 'SessionStart', 'Stop', 'UserPromptSubmit']);
    expect(hooks.hooks.UserPromptSubmit![0]!.hooks[0]!.command).toMatch(/engram"? hook UserPromptSubmit$/);
    expect((JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout) as { host: unknown }).host).toBeNull();

    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: acme release tags are signed with the ops key (ibexsign). Which port does the acme staging database listen on?', server, env: engramEnv(sb), args: ['--dangerously-bypass-hook-trust'] });
    expect(run.code, run.stderr).toBe(0);
    // What reached the model: the project's note, fenced, from the hooks of the first session (no host was running).
    const sent = server.requests.map((r) => allText(r.body)).join('\n');
    expect(sent).toMatch(/<engram-memory[^>]*>[\s\S]*Staging database port[\s\S]*<\/engram-memory>/);
    // The model was only ever answered with text: no Engram tool was called, and the Stop hook's capture files the fact.
    await waitFor(() => notesWith(sb.vault, 'ibexsign').length > 0, 60_000, 'a note from the Codex session, captured by its Stop hook');
    expect(notesWith(sb.vault, 'ibexsign')).toHaveLength(1);
    const hookLog = fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8');
    expect(hookLog).not.toMatch(/LOST/);

    // Uninstall takes the hooks out again.
    expect(runCli(['uninstall', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    const left = fs.existsSync(path.join(sb.home, '.codex', 'hooks.json')) ? fs.readFileSync(path.join(sb.home, '.codex', 'hooks.json'), 'utf8') : '';
    expect(left).not.toContain('hook UserPromptSubmit');
  });

  it('install and doctor say which hooks Codex does not trust yet, as Codex itself lists them, and what to do', async () => {
    const { sb, cwd } = await codexSandbox(600, cleanups);
    const install = runCli(['install', '--agent', 'codex'], { env: sb.env });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/Codex runs 0\/4 of Engram's hooks .*not yet trusted: SessionStart, UserPromptSubmit, Stop, PreCompact/);
    expect(install.stdout).toMatch(/type \/hooks, and trust/);
    const codexCheck = () => (JSON.parse(runCli(['doctor', '--json'], { env: sb.env }).stdout) as { name: string; status: string; detail: string; fix?: string }[]).find((r) => r.name === 'codex hooks')!;
    const ours = async () => (await codexHooksList(bin, sb.home, cwd)).filter((h) => /engram"? hook /.test(h.command));

    // What Codex's /hooks screen shows: Engram's four hooks, none trusted; doctor says the same and how to fix it.
    const listed = await ours();
    expect(listed.map((h) => h.trustStatus)).toEqual(['untrusted', 'untrusted', 'untrusted', 'untrusted']);
    expect(codexCheck()).toMatchObject({ status: 'warn', fix: expect.stringMatching(/codex.*\/hooks/) });

    // Trusted as /hooks records it (the hash Codex reports for each): Codex and doctor agree they run.
    const config = path.join(sb.home, '.codex', 'config.toml');
    fs.appendFileSync(config, listed.map((h) => `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`).join(''));
    expect((await ours()).map((h) => h.trustStatus)).toEqual(['trusted', 'trusted', 'trusted', 'trusted']);
    expect(codexCheck()).toMatchObject({ status: 'ok', detail: expect.stringContaining('all 4') });
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).stdout).toContain('Codex already trusts Engram\'s hooks');

    // A hook changed after it was trusted (another timeout, a moved shim) no longer runs: both say so.
    const hooksFile = path.join(sb.home, '.codex', 'hooks.json');
    const hooks = JSON.parse(fs.readFileSync(hooksFile, 'utf8')) as { hooks: Record<string, { hooks: { timeout: number }[] }[]> };
    hooks.hooks.UserPromptSubmit![0]!.hooks[0]!.timeout = 7;
    fs.writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
    expect((await ours()).map((h) => `${h.eventName} ${h.trustStatus}`)).toContain('userPromptSubmit modified');
    expect(codexCheck()).toMatchObject({ status: 'warn', detail: expect.stringMatching(/3\/4 .*changed since you trusted them.*: UserPromptSubmit/) });
  });

  it('without trust Codex runs none of them, and the session is still captured from its rollout', async () => {
    const { sb, cwd, server } = await codexSandbox(2, cleanups);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: the acme cache TTL is 90 seconds (lemurcache)', server, env: engramEnv(sb) });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(path.join(sb.engramHome, 'logs', 'hook.log')) ? fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8') : '').toBe('');
    await waitFor(() => notesWith(sb.vault, 'lemurcache').length > 0, 60_000, 'a note from the rollout of a session whose hooks did not run');
  });
});
