// The host follows Codex's rollouts once Codex is registered (without the real Codex CLI, which
// tests/real/codex-follow.test.ts drives): a rollout of this vault that grows is spooled like a Stop, and once it has
// been quiet for `codex.finished_after_seconds` (read from the configuration the host was handed, at each look)
// like a SessionEnd; a rollout of another folder is left alone.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { effectiveConfig } from '../../src/core/config.js';
import { startCodexFollower, type CodexFollower } from '../../sidecar/hosting/codex-follow.js';
import { CoverageStore } from '../../sidecar/hosting/coverage.js';
import { vaultState } from '../../sidecar/hosting/paths.js';
import { ensureStateDirs } from '../../sidecar/hosting/spool.js';
import { waitFor } from '../helpers/host.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

const stops: CodexFollower[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const f of stops.splice(0)) await f.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

function rollout(sessions: string, id: string, cwd: string, turns: number): string {
  const file = path.join(sessions, '2026', '11', '27', `rollout-2026-11-27T07-00-00-${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [JSON.stringify({ type: 'session_meta', payload: { id, cwd } })];
  for (let i = 0; i < turns; i++) lines.push(JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `turn ${i}` }] } }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function spooled(spool: string): { event: string; sessionId: string; transcriptBytes: number }[] {
  return fs.readdirSync(spool).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(fs.readFileSync(path.join(spool, n), 'utf8')));
}

describe('following Codex rollouts', () => {
  it('spools a growing rollout of this vault as a Stop, a quiet one as a SessionEnd, and leaves other folders alone', async () => {
    const root = makeTempDir('engram-codex-follow-');
    dirs.push(root);
    const vault = path.join(root, 'vault');
    const other = path.join(root, 'elsewhere');
    const codexHome = path.join(root, 'codex');
    const sessions = path.join(codexHome, 'sessions');
    for (const d of [vault, other, sessions]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), '[mcp_servers.engram]\ncommand = "engram"\n');
    // The vault is named by the environment for this vault's sessions only: a project's local settings name it.
    fs.mkdirSync(path.join(vault, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(vault, '.claude', 'engram.local.json'), JSON.stringify({ vault }));
    const env = { HOME: root, ENGRAM_HOME: path.join(root, 'home'), CODEX_HOME: codexHome, PATH: process.env.PATH };
    const state = vaultState(vault, env);
    ensureStateDirs(state);
    // The quiet time comes from the configuration handed in, as the host hands its reader.
    const config = () => effectiveConfig({ version: 1, codex: { finished_after_seconds: 1 } }, env);
    const follower = startCodexFollower({ state, env, config, coverage: new CoverageStore(env.ENGRAM_HOME, state.key), log: () => {}, notify: () => {} });
    stops.push(follower);
    await follower.ready;

    const ours = rollout(sessions, '11111111-2222-3333-4444-555555555555', vault, 3);
    rollout(sessions, '99999999-2222-3333-4444-555555555555', other, 3);
    const events = await waitFor(() => {
      const e = spooled(state.spool);
      return e.some((x) => x.event === 'SessionEnd') ? e : undefined;
    }, 20_000, 'the rollout spooled as a Stop, then as a SessionEnd once quiet');
    expect(events.map((e) => e.sessionId)).toEqual(events.map(() => '11111111-2222-3333-4444-555555555555'));
    expect(events.map((e) => e.event).sort()).toEqual(['SessionEnd', 'Stop']);
    expect(events.every((e) => e.transcriptBytes === fs.statSync(ours).size)).toBe(true);
  });
});
