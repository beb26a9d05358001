// The test harness itself (issue 27): a test run that fails mid-way, with a teardown that throws, leaves no process
// and no temp folder; one that leaks anyway fails, naming what it left, and still removes it; and a run says how many
// tests skipped and why. Each case is a nested Vitest run of a fixture in tests/fixtures/harness.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { running } from '../helpers/leftovers.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir } from '../helpers/temp.js';

interface Started {
  pids: number[];
  dirs: string[];
}

async function runFixture(name: string): Promise<{ code: number | null; out: string; started: Started }> {
  const report = path.join(makeTempDir('engram-harness-report-'), 'started.json');
  const vitest = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(process.execPath, [vitest, 'run', '--project', 'harness', `tests/fixtures/harness/${name}.fixture.ts`], {
    cwd: repoRoot,
    env: { ...process.env, ENGRAM_HARNESS_FIXTURES: '1', ENGRAM_HARNESS_REPORT: report, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out, started: JSON.parse(fs.readFileSync(report, 'utf8')) as Started };
}

describe('the test harness leaves nothing behind', () => {
  it('a test that fails mid-way, in a file whose teardown throws: its host, child, detached grandchild and temp folders are gone', async () => {
    const r = await runFixture('fails-midway');
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('fails here on purpose');
    expect(r.out).toContain('a teardown step throws before the sandbox is cleaned');
    expect(r.started.pids).toHaveLength(3);
    expect(r.started.pids.filter(running)).toEqual([]);
    expect(r.started.dirs.filter((d) => fs.existsSync(d))).toEqual([]);
    expect(r.out).toContain('engram tests: 0 passed, 1 failed, 0 skipped');
    expect(r.out).toContain('engram tests: nothing left behind');
  }, 180_000);

  it('a test that leaks past every teardown fails the run, which names and removes what was left; skips are said with their reason', async () => {
    const r = await runFixture('leaks');
    const [pid, bare] = r.started.pids;
    const [dir] = r.started.dirs;
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('engram tests: 1 passed, 0 failed, 1 skipped (not a full run):');
    expect(r.out).toContain('skipped 1: tests/fixtures/harness/leaks.fixture.ts: a suite that cannot run here (skipped: no such tool on this machine)');
    expect(r.out).toContain('engram tests: FAILED: the tests left these behind');
    expect(r.out).toContain(`process ${pid}:`);
    expect(r.out).toContain(`temp folder entry ${dir}`);
    // The one without any marker is found by its folder in the run's temp folder.
    expect(r.out).toContain(`process ${bare}:`);
    expect(running(pid)).toBe(false);
    expect(running(bare)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  }, 180_000);
});
