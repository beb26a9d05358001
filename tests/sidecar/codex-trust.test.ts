// Whether Codex will run Engram's hooks, read from its files the way Codex 0.169 reads them: the hash it records when
// the user trusts a hook (the expected values are what the real `codex app-server` `hooks/list` reported for these
// exact handlers), and the forms `[hooks.state]` takes in config.toml. The real CLI is asked in
// tests/real/codex-hooks.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexHookHash, codexHooksReport, codexTrustAdvice, readHookStates } from '../../sidecar/install/codex-trust.js';
import { addHooks, CODEX_HOOK_EVENTS } from '../../sidecar/install/registration.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function codexHome(): { env: NodeJS.ProcessEnv; home: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-codex-trust-'));
  dirs.push(home);
  return { env: { CODEX_HOME: home, HOME: home }, home };
}

describe("Codex's trust in Engram's hooks", () => {
  it('hashes a handler as Codex 0.169 does', () => {
    expect(codexHookHash('user_prompt_submit', undefined, { type: 'command', command: '/tmp/ship25/engram hook UserPromptSubmit', timeout: 10 })).toBe('sha256:7581ecf14f0831aba1966d74862854c5e0016f78c373c08f204597e8eced7d9d');
    expect(codexHookHash('stop', undefined, { type: 'command', command: '/tmp/ship25/engram hook Stop', timeout: 10 })).toBe('sha256:3cbd6147380ae66edcc43eecee4939544ae8975f069f20fea0c0118a647e249f');
    // Another timeout is another hash: a trusted hook edited by a re-install needs trusting again.
    expect(codexHookHash('stop', undefined, { type: 'command', command: '/tmp/ship25/engram hook Stop', timeout: 5 })).not.toBe('sha256:3cbd6147380ae66edcc43eecee4939544ae8975f069f20fea0c0118a647e249f');
  });

  it('reads trust from table headers and inline tables, a hook turned off, and hooks turned off altogether', () => {
    const { states, featureOff } = readHookStates([
      'model = "gpt-5"',
      '[hooks.state."/h/hooks.json:stop:0:0"]',
      'trusted_hash = "sha256:aa" # trusted in /hooks',
      '[hooks.state]',
      '"/h/hooks.json:pre_compact:0:0" = { trusted_hash = "sha256:bb", enabled = false }',
      "[hooks.state.'/h/hooks.json:session_start:0:0']",
      'enabled = true',
      '[features]',
      'hooks = false',
    ].join('\n'));
    expect(states.get('/h/hooks.json:stop:0:0')).toEqual({ trustedHash: 'sha256:aa' });
    expect(states.get('/h/hooks.json:pre_compact:0:0')).toEqual({ trustedHash: 'sha256:bb', enabled: false });
    expect(states.get('/h/hooks.json:session_start:0:0')).toEqual({ enabled: true });
    expect(featureOff).toBe(true);
    expect(readHookStates('[features]\nhooks = true\n').featureOff).toBe(false);
  });

  it("names each of Engram's hooks that Codex will not run, and says nothing once all are trusted", () => {
    const { env, home } = codexHome();
    expect(codexTrustAdvice(codexHooksReport(env))).toBeUndefined(); // nothing installed: nothing to say
    const hooksFile = path.join(home, 'hooks.json');
    const installed = addHooks({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-me' }] }] } }, '/opt/engram/bin/engram', CODEX_HOOK_EVENTS);
    fs.writeFileSync(hooksFile, JSON.stringify(installed));
    const report = codexHooksReport(env);
    // The user's own Stop hook keeps group 0: Engram's is group 1, and only Engram's are reported.
    expect(report.hooks.map((h) => h.key)).toEqual([
      `${hooksFile}:stop:1:0`, `${hooksFile}:session_start:0:0`, `${hooksFile}:user_prompt_submit:0:0`, `${hooksFile}:pre_compact:0:0`,
    ]);
    expect(codexTrustAdvice(report)?.detail).toMatch(/0\/4 .*not yet trusted: Stop, SessionStart, UserPromptSubmit, PreCompact/);

    const hooks = installed.hooks as Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;
    const trust = (event: string, label: string, g: number, extra = '') => `[hooks.state."${hooksFile}:${label}:${g}:0"]\ntrusted_hash = "${codexHookHash(label, hooks[event][g].matcher, hooks[event][g].hooks[0])}"\n${extra}`;
    fs.writeFileSync(path.join(home, 'config.toml'), [trust('Stop', 'stop', 1), trust('SessionStart', 'session_start', 0), trust('UserPromptSubmit', 'user_prompt_submit', 0), trust('PreCompact', 'pre_compact', 0)].join('\n'));
    expect(codexHooksReport(env).hooks.every((h) => h.trust === 'trusted')).toBe(true);
    expect(codexTrustAdvice(codexHooksReport(env))).toBeUndefined();

    fs.writeFileSync(path.join(home, 'config.toml'), [trust('Stop', 'stop', 0), trust('SessionStart', 'session_start', 0, 'enabled = false\n'), trust('UserPromptSubmit', 'user_prompt_submit', 0), trust('PreCompact', 'pre_compact', 0)].join('\n'));
    const advice = codexTrustAdvice(codexHooksReport(env));
    expect(advice?.detail).toMatch(/2\/4 .*not yet trusted: Stop; turned off in \/hooks: SessionStart/);
    expect(advice?.fix).toMatch(/codex.*\/hooks/);
  });
});
