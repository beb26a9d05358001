// `engram status` and `engram doctor` say where the configured backend's credentials come from (never the secret):
// for claude, an API key in the environment, a subscription login, or nothing (then doctor fails with the fix).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

type Result = { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string };

describe('backend credentials in status and doctor', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    sb = makeSandbox();
    env = { ...sb.env };
    for (const k of Object.keys(env)) if (/^(ANTHROPIC_|CLAUDE_CODE_OAUTH_TOKEN$|OPENAI_API_KEY$)/.test(k)) delete env[k];
    // A claude executable to find (the check is about credentials, not the CLI).
    const bin = path.join(sb.root, 'bin', 'claude');
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(bin, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'claude', claude: { command: bin } }));
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  const doctorBackend = (e: NodeJS.ProcessEnv) => (JSON.parse(runCli(['doctor', '--json'], { env: e }).stdout) as Result[]).find((r) => r.name === 'backend')!;
  const status = (e: NodeJS.ProcessEnv) => runCli(['status'], { env: e });
  const statusJson = (e: NodeJS.ProcessEnv) => JSON.parse(runCli(['status', '--json'], { env: e }).stdout) as { credentials?: { source: string; detail: string } };

  it('says nothing is there, and how to fix it, when claude is not logged in and no key is set', () => {
    const d = doctorBackend(env);
    expect(d.status).toBe('fail');
    expect(d.detail).toMatch(/not logged in/);
    expect(d.fix).toMatch(/\/login/);
    expect(d.fix).toContain('engram configure backend rules');
    expect(statusJson(env).credentials?.source).toBe('none');
    expect(status(env).stdout).toMatch(/^backend {3}claude, credentials: claude: not logged in/m);
  });

  it('names ANTHROPIC_API_KEY from the environment without printing it', () => {
    const e = { ...env, ANTHROPIC_API_KEY: 'sk-ant-secret-value-123' };
    const d = doctorBackend(e);
    expect(d.status).toBe('ok');
    expect(d.detail).toContain('ANTHROPIC_API_KEY from the environment');
    const s = status(e);
    expect(s.stdout).toMatch(/credentials: ANTHROPIC_API_KEY from the environment/);
    expect(s.stdout + JSON.stringify(statusJson(e)) + JSON.stringify(d)).not.toContain('sk-ant-secret-value-123');
  });

  it('names the subscription login when Claude Code has one', () => {
    const creds = path.join(sb.home, '.claude', '.credentials.json');
    fs.mkdirSync(path.dirname(creds), { recursive: true });
    fs.writeFileSync(creds, JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat-secret', expiresAt: 0 } }));
    const d = doctorBackend(env);
    expect(d.status).toBe('ok');
    expect(d.detail).toContain('subscription login');
    expect(statusJson(env).credentials?.source).toBe('subscription login');
    expect(JSON.stringify(d)).not.toContain('sk-ant-oat-secret');
  });
});
