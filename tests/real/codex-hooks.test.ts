// Codex's own hooks (Codex 0.169 has them, on by default): `engram install --agent codex` writes Engram's hooks into
// $CODEX_HOME/hooks.json beside the MCP server. Codex runs a hook once the user has trusted it in its /hooks screen;
// `--dangerously-bypass-hook-trust` stands in for that trust here (`codex exec` has no screen to give it in). Then the
// real Codex CLI gets the vault's notes in the request it sends the model, from the first session with no host
// running, and a session that calls no Engram tool is captured once, whatever the rollout follower also sees.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor } from '../helpers/host.js';
import { allText, realCli, realSuiteTitle, runCodex, startFakeResponses, writeCodexConfig } from '../helpers/real-cli.js';

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

/** A sandbox with a project folder, Engram on the rules backend, and Codex pointed at a fake Responses server. */
async function codexBox(finishedAfterSeconds: number) {
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

describe.skipIf('skip' in codex)(realSuiteTitle('codex', "Engram through Codex's own hooks"), () => {
  const bin = (codex as { bin: string }).bin;

  it('install writes the hooks; trusted, they inject context and capture a session that calls no Engram tool', async () => {
    // A long quiet time: the rollout follower would capture this session only after ten minutes; the Stop hook does it now.
    const { sb, cwd, server } = await codexBox(600);
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

  it('without trust Codex runs none of them, and the session is still captured from its rollout', async () => {
    const { sb, cwd, server } = await codexBox(2);
    expect(runCli(['install', '--agent', 'codex'], { env: sb.env }).code).toBe(0);
    const run = await runCodex({ bin, home: sb.home, cwd, prompt: 'remember: the acme cache TTL is 90 seconds (lemurcache)', server, env: engramEnv(sb) });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(path.join(sb.engramHome, 'logs', 'hook.log')) ? fs.readFileSync(path.join(sb.engramHome, 'logs', 'hook.log'), 'utf8') : '').toBe('');
    await waitFor(() => notesWith(sb.vault, 'lemurcache').length > 0, 60_000, 'a note from the rollout of a session whose hooks did not run');
  });
});
