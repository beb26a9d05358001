// The Node SpawnPort: output, exit codes, stdin, environment overrides, missing commands and timeouts.
import { describe, expect, it } from 'vitest';
import { NodeSpawn, childEnv } from '../../sidecar/hosting/node-spawn.js';
import { isEngramError } from '../../src/core/errors.js';

const node = process.execPath;
const spawner = new NodeSpawn({ killGraceMs: 300 });

describe('NodeSpawn', () => {
  it('collects stdout, stderr and the exit code, and feeds stdin', async () => {
    const r = await spawner.run({
      command: node,
      args: ['-e', 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{process.stdout.write(s.toUpperCase());process.stderr.write("é");process.exit(3)})'],
      stdin: 'héllo',
    });
    expect(r).toEqual({ exitCode: 3, signal: null, stdout: 'HÉLLO', stderr: 'é', timedOut: false });
  });

  it('applies environment overrides and removes variables set to undefined', async () => {
    process.env.ENGRAM_SPAWN_TEST_REMOVE = 'present';
    try {
      const r = await spawner.run({
        command: node,
        args: ['-e', 'process.stdout.write(JSON.stringify([process.env.ENGRAM_SPAWN_TEST_ADD, process.env.ENGRAM_SPAWN_TEST_REMOVE ?? null]))'],
        env: { ENGRAM_SPAWN_TEST_ADD: 'added', ENGRAM_SPAWN_TEST_REMOVE: undefined },
      });
      expect(JSON.parse(r.stdout)).toEqual(['added', null]);
    } finally {
      delete process.env.ENGRAM_SPAWN_TEST_REMOVE;
    }
    expect(childEnv({ A: '1', B: '2' }, { B: undefined, C: '3' })).toEqual({ A: '1', C: '3' });
  });

  it('runs in the given working directory', async () => {
    const r = await spawner.run({ command: node, args: ['-e', 'process.stdout.write(process.cwd())'], cwd: '/' });
    expect(r.stdout).toBe('/');
  });

  it('rejects a missing command with not-found', async () => {
    const e = await spawner.run({ command: 'engram-no-such-command-xyz', args: [] }).catch((x: unknown) => x);
    expect(isEngramError(e, 'not-found')).toBe(true);
  });

  it('sends SIGTERM on timeout', async () => {
    // The child never exits on its own: the run returning at all is the timeout working.
    const r = await spawner.run({ command: node, args: ['-e', 'setInterval(()=>{}, 1000)'], timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGTERM');
  });

  it('escalates to SIGKILL when the child ignores SIGTERM', async () => {
    const r = await spawner.run({
      command: node,
      args: ['-e', 'process.on("SIGTERM",()=>{});console.log("ready");setInterval(()=>{}, 1000)'],
      timeoutMs: 1500,
    });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(r.stdout).toContain('ready');
  });
});
