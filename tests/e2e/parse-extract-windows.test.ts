// `engram parse` shows the windows extraction actually sends: the same budget and overlap by default, so the same
// windows as `engram extract --dry-run` on the same transcript (and as core's extractWindows).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { extractWindows, DEFAULT_WINDOW } from '../../src/core/extract/window.js';
import { readSession } from '../../src/core/transcript/detect.js';

const root = makeTempDir('engram-parse-windows-');
const vault = path.join(root, 'vault');
fs.mkdirSync(vault);
const env = { ENGRAM_HOME: path.join(root, 'state'), HOME: root, ENGRAM_VAULT: vault, ENGRAM_BACKEND: 'rules' };
afterAll(() => removeDir(root));

/** A Claude Code session of 40 turns of about 3,000 characters each: several windows at any sensible budget. */
function writeSession(file: string): void {
  const id = '22222222-bbbb-4bbb-8bbb-000000000002';
  const lines: string[] = [];
  let parent: string | null = null;
  for (let i = 0; i < 40; i++) {
    const uuid = `${id}-${String(i).padStart(3, '0')}`;
    const ts = new Date(Date.UTC(2026, 10, 20, 9, i)).toISOString();
    const words = Array.from({ length: 420 }, (_, k) => `word${(i * 7 + k) % 97}`).join(' ');
    const base = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/acme', sessionId: id, version: '2.1.39', gitBranch: 'main', uuid, timestamp: ts };
    lines.push(JSON.stringify(i % 2 === 0
      ? { ...base, type: 'user', message: { role: 'user', content: `Turn ${i}: ${words}` } }
      : { ...base, type: 'assistant', requestId: `req_${uuid}`, message: { model: 'claude-opus-4-6', id: `msg_${uuid}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `Turn ${i}: ${words}` }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 10 } } }));
    parent = uuid;
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

describe('engram parse windows = extraction windows', () => {
  it('by default parse cuts the windows extract --dry-run sends (budget and overlap from the extraction module)', async () => {
    const file = path.join(root, 'session.jsonl');
    writeSession(file);
    const parsed = JSON.parse(runCli(['parse', file, '--json'], { env }).stdout) as { window: { budgetTokens: number; overlapTurns: number }; windows: { firstUuid: string; lastUuid: string; overlap: number }[] };
    expect(parsed.window).toEqual({ budgetTokens: DEFAULT_WINDOW.budgetTokens, overlapTurns: 0 });
    expect(parsed.windows.length).toBeGreaterThan(1);
    expect(parsed.windows.every((w) => !w.overlap)).toBe(true);

    const dry = runCli(['extract', file, '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const run = JSON.parse(dry.stdout) as { windows: { total: number } };
    expect(run.windows.total).toBe(parsed.windows.length);

    // Window by window: the same turn ranges as the extraction pipeline's own windows.
    const session = await readSession(fs.createReadStream(file), 'claude-code', { source: file });
    const sent = extractWindows(session.meta.sessionId, session.turns).map((w) => `${w.firstUuid}..${w.lastUuid}`);
    expect(parsed.windows.map((w) => `${w.firstUuid}..${w.lastUuid}`).sort()).toEqual(sent.sort());

    // The flags still choose other windows for a look.
    const custom = JSON.parse(runCli(['parse', file, '--json', '--budget', '24000', '--overlap', '2'], { env }).stdout) as typeof parsed;
    expect(custom.window).toEqual({ budgetTokens: 24000, overlapTurns: 2 });
    expect(custom.windows.some((w) => w.overlap === 2)).toBe(true);
    expect(custom.windows.map((w) => `${w.firstUuid}..${w.lastUuid}`)).not.toEqual(parsed.windows.map((w) => `${w.firstUuid}..${w.lastUuid}`));
  });
});
