// The `claude` backend with the real Claude Code CLI against the fake Messages API: Engram's nested call leaves no
// transcript, does not think, retries only under Engram's policy, asks for Engram's output cap, runs in the
// environment Engram defines (never a session's base URL), and a "Not logged in" reply is an auth failure.
// Transcripts that old nested calls left behind are never listed for backfill or setup (docs/ARCHITECTURE.md invariant 7).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { effectiveConfig } from '../../src/core/config.js';
import { BackendError } from '../../src/core/extract/backends/backend-error.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import { ENGRAM_PROMPT_MARKER } from '../../src/core/transcript/fence.js';
import { backendCredentials, createBackend } from '../../sidecar/hosting/backends.js';
import { listClaudeTranscripts } from '../../sidecar/install/transcripts.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox } from '../helpers/host.js';
import { allText, cleanEnv, realCli, realSuiteTitle, runProcess, startFakeAnthropic, type FakeServer } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function scratch(): { root: string; home: string } {
  const root = makeTempDir('engram-nested-test-');
  cleanups.push(() => removeDir(root));
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  return { root, home };
}

async function server(script?: Parameters<typeof startFakeAnthropic>[0]): Promise<FakeServer> {
  const s = await startFakeAnthropic(script);
  cleanups.push(() => s.close());
  return s;
}

/** Every file under a folder (relative paths). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** The variables a hook-started host inherits from the Claude Code session that started it (docs/ARCHITECTURE.md "What the agents do"). */
function sessionVariables(decoy: string): NodeJS.ProcessEnv {
  return {
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    CLAUDE_CODE_SESSION_ID: '11111111-2222-4333-8444-555555555555',
    CLAUDE_CODE_CHILD_SESSION: '1',
    CLAUDE_ENV_FILE: '/tmp/session-env-file',
    CLAUDE_PROJECT_DIR: '/home/someone/project',
    AI_AGENT: 'claude-code_2.1.330_agent',
    TRACEPARENT: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    ANTHROPIC_BASE_URL: decoy,
    ANTHROPIC_AUTH_TOKEN: 'session-bearer-token',
  };
}

/**
 * The backend as the host builds it (sidecar/hosting/backends.ts), with `claude.command` a wrapper that records the
 * environment the real CLI gets and then runs it. Engram's own setting points the CLI at the fake server.
 */
function backend(home: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>, attempts = 1): { backend: LlmBackend; envFile: string } {
  const bin = (claude as { bin: string }).bin;
  const envFile = path.join(home, '..', 'child-env.json');
  const wrapper = path.join(home, '..', 'claude-wrapper.mjs');
  fs.writeFileSync(
    wrapper,
    `#!${process.execPath}\nimport fs from 'node:fs';\nimport { spawnSync } from 'node:child_process';\n` +
      `fs.appendFileSync(${JSON.stringify(envFile)}, JSON.stringify({ env: process.env, cwd: process.cwd(), args: process.argv.slice(2) }) + '\\n');\n` +
      `const r = spawnSync(${JSON.stringify(bin)}, process.argv.slice(2), { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n`,
  );
  fs.chmodSync(wrapper, 0o755);
  const cfg = effectiveConfig({ version: 1, claude: { command: wrapper, ...config } }, {});
  const b = createBackend('claude', cfg, { env, retry: { attempts, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 120_000 });
  return { backend: b, envFile };
}

function childRuns(envFile: string): { env: Record<string, string>; cwd: string; args: string[] }[] {
  return fs.existsSync(envFile) ? fs.readFileSync(envFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'the claude backend runs the real CLI as Engram defines it'), () => {
  it('leaves no transcript, sends no thinking and no tools, asks for Engram\'s cap, and ignores a session\'s base URL', async () => {
    const { home } = scratch();
    const fake = await server(() => ({ text: '{"beats":[]}' }));
    const decoy = await server(() => ({ text: 'the decoy answered' }));
    const parent = { ...cleanEnv(home), ANTHROPIC_API_KEY: 'sk-ant-user-own-key', ...sessionVariables(decoy.url) };
    const { backend: b, envFile } = backend(home, parent, { base_url: fake.url });

    const r = await b.complete({ system: `${ENGRAM_PROMPT_MARKER}\nExtract beats.`, user: '<transcript>\n[turn 1 · user]\nwe use pnpm\n</transcript>', json: true, maxTokens: 2048 });
    expect(r.text).toBe('{"beats":[]}');

    // Where the request went: Engram's claude.base_url, never the session's ANTHROPIC_BASE_URL.
    expect(decoy.requests).toEqual([]);
    const calls = fake.modelRequests();
    expect(calls).toHaveLength(1);
    const body = calls[0]!.body;
    expect(body.thinking).toBeUndefined();
    expect(body.tools ?? []).toEqual([]);
    expect(body.max_tokens).toBe(2048);
    // The user's own API key still authenticates the call; the session's bearer token is not sent.
    expect(calls[0]!.headers['x-api-key']).toBe('sk-ant-user-own-key');
    expect(calls[0]!.headers.authorization).toBeUndefined();
    // The first user message carries Engram's marker (what a transcript would keep).
    const first = body.messages.find((m: { role: string }) => m.role === 'user');
    const firstText = typeof first.content === 'string' ? first.content : first.content.map((c: { text?: string }) => c.text ?? '').join('');
    expect(firstText.startsWith(ENGRAM_PROMPT_MARKER)).toBe(true);
    expect(allText(body)).toContain('we use pnpm');

    // Nothing written under ~/.claude/projects.
    expect(filesUnder(path.join(home, '.claude', 'projects'))).toEqual([]);

    // The environment the CLI ran in: none of the session's variables, Engram's limits set.
    const [run] = childRuns(envFile);
    for (const k of Object.keys(sessionVariables(''))) if (k !== 'ANTHROPIC_BASE_URL') expect(run!.env[k], k).toBeUndefined();
    expect(run!.env.ANTHROPIC_BASE_URL).toBe(fake.url);
    expect(run!.env).toMatchObject({ ENGRAM_NESTED: '1', MAX_THINKING_TOKENS: '0', CLAUDE_CODE_DISABLE_THINKING: '1', CLAUDE_CODE_MAX_RETRIES: '0', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '2048' });
    expect(run!.args).toContain('--no-session-persistence');
    expect(fs.existsSync(run!.cwd)).toBe(false); // the empty temporary folder is gone
    // It was made in Engram's state folder, so a host killed mid-call leaves nothing in the system's temp folder.
    expect(path.dirname(run!.cwd)).toBe(path.join(home, '.engram', 'tmp'));
  });

  it('without claude.base_url, the endpoint in the user\'s Claude Code settings applies, never the session\'s', async () => {
    const { home } = scratch();
    const fake = await server(() => ({ text: 'from the configured gateway' }));
    const decoy = await server(() => ({ text: 'the decoy answered' }));
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ env: { ANTHROPIC_BASE_URL: fake.url } }));
    const { backend: b, envFile } = backend(home, { ...cleanEnv(home), ANTHROPIC_API_KEY: 'sk-ant-user-own-key', ...sessionVariables(decoy.url) }, {});
    const r = await b.complete({ system: `${ENGRAM_PROMPT_MARKER}\nx`, user: 'y', maxTokens: 64 });
    expect(r.text).toBe('from the configured gateway');
    expect(decoy.requests).toEqual([]);
    expect(fake.modelRequests()).toHaveLength(1);
    expect(childRuns(envFile)[0]!.env.ANTHROPIC_BASE_URL).toBeUndefined();
  });

  it('runs none of the user\'s hooks (Engram\'s own included) while keeping the user\'s other settings', async () => {
    const { home } = scratch();
    const fake = await server(() => ({ text: '{"beats":[]}' }));
    const ran = path.join(home, '..', 'hooks-ran.txt');
    const record = (event: string) => [{ hooks: [{ type: 'command', command: `echo ${event} >> '${ran}'` }] }];
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    // The user's settings: an endpoint (still honoured) and a hook on every event (what `engram install` adds).
    const events = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd', 'PreCompact'];
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ env: { ANTHROPIC_BASE_URL: fake.url }, hooks: Object.fromEntries(events.map((e) => [e, record(e)])) }));
    const { backend: b, envFile } = backend(home, { ...cleanEnv(home), ANTHROPIC_API_KEY: 'sk-ant-user-own-key' }, {});
    for (let i = 0; i < 3; i++) expect((await b.complete({ system: `${ENGRAM_PROMPT_MARKER}\nx`, user: `call ${i}`, maxTokens: 64 })).text).toBe('{"beats":[]}');
    expect(fake.modelRequests()).toHaveLength(3);
    expect(fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8').trim().split('\n') : []).toEqual([]);
    expect(childRuns(envFile)[0]!.args.join(' ')).toContain('disableAllHooks');
  });

  it('an HTTP 500 costs one request per Engram attempt (the CLI does not retry on its own) and is a server failure', async () => {
    const { home } = scratch();
    const fake = await server(() => ({ status: 500 }));
    const { backend: b } = backend(home, { ...cleanEnv(home), ANTHROPIC_API_KEY: 'sk-ant-dummy' }, { base_url: fake.url }, 2);
    const err = await b.complete({ system: `${ENGRAM_PROMPT_MARKER}\nx`, user: 'y', maxTokens: 64 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).failure).toBe('server');
    expect((err as BackendError).status).toBe(500);
    expect(fake.modelRequests()).toHaveLength(2);
  });

  it('"Not logged in" is an auth failure with the real fix, not a server error, and is not retried', async () => {
    const { home } = scratch();
    const fake = await server(() => ({ text: 'never' }));
    // A temp HOME with no login and no API key.
    const { backend: b, envFile } = backend(home, cleanEnv(home), { base_url: fake.url }, 3);
    const err = await b.complete({ system: `${ENGRAM_PROMPT_MARKER}\nx`, user: 'y', maxTokens: 64 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    const e = err as BackendError;
    expect(e.failure).toBe('auth');
    expect(e.message).toContain('Not logged in');
    expect(e.hint).toContain('/login');
    expect(e.hint).toContain('engram configure backend rules');
    expect(e.hint).not.toContain('claude_path');
    expect(childRuns(envFile)).toHaveLength(1);
    expect(fake.modelRequests()).toEqual([]);
    // Status and doctor say the same: no credentials.
    const cred = backendCredentials('claude', effectiveConfig({ version: 1 }, {}), cleanEnv(home));
    expect(cred.source).toBe('none');
  });

  it('a missing CLI names the real key, claude.command', async () => {
    const { home } = scratch();
    const cfg = effectiveConfig({ version: 1, claude: { command: path.join(home, 'no-such-claude') } }, {});
    const b = createBackend('claude', cfg, { env: cleanEnv(home), retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    const e = (await b.complete({ system: 'x', user: 'y' }).catch((x: unknown) => x)) as BackendError;
    expect(e.failure).toBe('not-installed');
    expect(e.hint).toContain('engram configure claude.command');
  });
});

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'transcripts of Engram\'s own calls are never listed for backfill or setup'), () => {
  it('skips the -engram-nested- folders old nested calls left, and a transcript that starts with the marker', async () => {
    const { root, home } = scratch();
    const bin = (claude as { bin: string }).bin;
    const fake = await server(() => ({ text: 'ok' }));
    const env = { ...cleanEnv(home), ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-dummy', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CODE_DISABLE_THINKING: '1' };
    const nestedCwd = fs.mkdtempSync(path.join(root, 'engram-nested-'));
    const userCwd = path.join(root, 'app');
    fs.mkdirSync(userCwd);
    // 1. A nested call as Engram made it before this fix: a transcript in a temp cwd, no marker in the user message.
    const old = await runProcess(bin, ['-p', '--output-format', 'json', '--system-prompt', `${ENGRAM_PROMPT_MARKER}\nExtract.`], { cwd: nestedCwd, env, input: 'extract this window' });
    expect(old.code, old.stderr).toBe(0);
    // 2. A transcript whose first user message starts with the marker (from any folder).
    const marked = await runProcess(bin, ['-p', '--output-format', 'json'], { cwd: userCwd, env, input: `${ENGRAM_PROMPT_MARKER}\nextract this window` });
    expect(marked.code, marked.stderr).toBe(0);
    // 3. The user's own session.
    const own = await runProcess(bin, ['-p', '--output-format', 'json'], { cwd: userCwd, env, input: 'we decided to use pnpm' });
    expect(own.code, own.stderr).toBe(0);

    const all = filesUnder(path.join(home, '.claude', 'projects')).filter((f) => f.endsWith('.jsonl'));
    expect(all).toHaveLength(3);
    expect(all.some((f) => /-engram-nested-[A-Za-z0-9]{6}\//.test(f))).toBe(true);

    const listed = await listClaudeTranscripts({ HOME: home });
    expect(listed.map((f) => f.sessionId)).toEqual([own.json.session_id]);

    // `engram backfill` counts only the user's session, and `engram setup` queues only it for the rules pass.
    const sb = makeSandbox();
    cleanups.push(() => sb.cleanup());
    const engramEnv = { ...sb.env, HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') };
    const backfill = runCli(['backfill'], { env: { ...engramEnv, ENGRAM_BACKEND: 'rules' } });
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(/^1 transcripts,/m);
    const setup = runCli(['setup', '--yes', '--vault', sb.vault], { env: engramEnv, timeout: 120_000 });
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/4\. Transcripts: 1 existing Claude Code sessions/);
  });
});
