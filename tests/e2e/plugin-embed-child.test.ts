// The plugin's embedding child against the real `engram embed-server` (built CLI, tiny real ONNX model): vectors equal
// to the in-process embedder's, restart after kill -9, a clean dispose, and one clear problem when it cannot start.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BACKOFF, EmbedChild, openEmbedChild, restartDelay, type EmbedChildStatus } from '../../src/plugin/node/embed-child.js';
import { MIN_NODE_VERSION, findEngramCli, findNode } from '../../src/plugin/node/find-cli.js';
import { loadEmbedder } from '../../sidecar/hosting/embedder.js';
import { shimText } from '../../sidecar/hosting/install-facts.js';
import { cliPath } from '../helpers/cli.js';
import { alive, makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';
import { makeTinyModel, type TinyModel } from '../helpers/tiny-model.js';

// The supervisor's timers (it uses node:timers), tracked so a test can see that none is left.
const liveTimers = vi.hoisted(() => new Set<unknown>());
vi.mock('node:timers', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers')>();
  return {
    ...real,
    setTimeout: (fn: () => void, ms?: number) => {
      const t = real.setTimeout(() => {
        liveTimers.delete(t);
        fn();
      }, ms);
      liveTimers.add(t);
      return t;
    },
    clearTimeout: (t: ReturnType<typeof real.setTimeout> | undefined) => {
      liveTimers.delete(t);
      real.clearTimeout(t);
    },
  };
});

const posix = process.platform !== 'win32';
let sb: Sandbox;
let model: TinyModel;
let quietPipes = 0;

/** Child-process handles and pipes this process holds (Node closes a dead child's handles a loop turn after it). */
function handles(): { processes: number; pipes: number } {
  const kinds = process.getActiveResourcesInfo();
  return { processes: kinds.filter((k) => k === 'ProcessWrap').length, pipes: kinds.filter((k) => k === 'PipeWrap').length };
}

/** Nothing of ours is left: no timer, and (after Node's close phase) no child handle or pipe. */
async function nothingLeft(): Promise<void> {
  expect([...liveTimers]).toEqual([]);
  await waitFor(() => {
    const h = handles();
    return h.processes === 0 && h.pipes === quietPipes;
  }, 2000, 'child handles and pipes to close');
}

beforeAll(async () => {
  sb = makeSandbox();
  model = makeTinyModel(path.join(sb.root, 'models', 'tiny'));
  // The test worker's own pipes (to vitest), counted when no child runs.
  await waitFor(() => handles().processes === 0, 5000, 'a quiet start');
  quietPipes = handles().pipes;
});
afterAll(async () => sb.cleanup());

/** A fake executable (POSIX shell script) in its own folder. */
function script(name: string, body: string): string {
  const dir = fs.mkdtempSync(path.join(sb.root, 'bin-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** A stand-in for the CLI, run by the real Node, for behaviour the real server does not have (crash, ignore SIGTERM). */
function fakeCli(source: string): string {
  const file = path.join(fs.mkdtempSync(path.join(sb.root, 'cli-')), 'engram.mjs');
  fs.writeFileSync(file, source);
  return file;
}

function openReal(statuses: EmbedChildStatus[] = []) {
  return openEmbedChild({ nodePath: process.execPath, cliPath, engramHome: sb.engramHome, modelDir: model.dir }, sb.env, {
    backoff: { initialMs: 200 },
    onStatus: (s) => statuses.push(s),
  });
}

async function openedReal(statuses: EmbedChildStatus[] = []): Promise<EmbedChild> {
  const r = await openReal(statuses);
  if (!r.ok) throw new Error(r.problem);
  return r.embedder;
}

describe('finding Node', () => {
  it('takes the configured Node and reads its version', async () => {
    expect(await findNode(process.execPath, {})).toEqual({ ok: true, path: process.execPath, version: process.version });
  });

  it('reports a configured path that is not there instead of looking elsewhere', async () => {
    const r = await findNode(path.join(sb.root, 'no', 'node'), process.env);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toContain(path.join(sb.root, 'no', 'node'));
  });

  it.skipIf(!posix)('refuses a Node older than the CLI needs, saying which and where', async () => {
    const old = script('node', 'echo v18.20.4');
    const r = await findNode(old, {});
    expect(r).toEqual({ ok: false, problem: expect.stringContaining(`v18.20.4 at ${old} is too old`) });
    expect(!r.ok && r.problem).toContain(MIN_NODE_VERSION);
  });

  it.skipIf(!posix)('looks on PATH without a shell, skipping what is not Node', async () => {
    const notNode = script('node', 'echo hello');
    const good = script('node', 'echo v22.11.0');
    const r = await findNode(undefined, { PATH: [path.dirname(notNode), path.join(sb.root, 'missing'), path.dirname(good)].join(path.delimiter), HOME: sb.home });
    expect(r).toEqual({ ok: true, path: good, version: 'v22.11.0' });
  });
});

describe('finding the CLI', () => {
  it('takes a configured dist/engram.mjs, and names a configured path that is missing', () => {
    expect(findEngramCli({ cliPath }, {})).toEqual({ ok: true, path: cliPath });
    const missing = path.join(sb.root, 'gone', 'engram.mjs');
    expect(findEngramCli({ cliPath: missing }, {})).toEqual({ ok: false, problem: expect.stringContaining(missing) });
  });

  it('follows the shim `engram install` writes in ENGRAM_HOME, and says what to run when there is none', () => {
    const home = fs.mkdtempSync(path.join(sb.root, 'home-'));
    const none = findEngramCli({ engramHome: home }, sb.env);
    expect(none).toEqual({ ok: false, problem: expect.stringContaining('engram install') });
    const shim = path.join(home, 'bin', process.platform === 'win32' ? 'engram.cmd' : 'engram');
    fs.mkdirSync(path.dirname(shim), { recursive: true });
    fs.writeFileSync(shim, shimText(process.execPath, cliPath, path.join(home, 'logs')));
    expect(findEngramCli({ engramHome: home }, sb.env)).toEqual({ ok: true, path: cliPath });
    // ENGRAM_HOME from the environment when the setting is empty.
    expect(findEngramCli({}, { ...sb.env, ENGRAM_HOME: home })).toEqual({ ok: true, path: cliPath });
    fs.writeFileSync(shim, shimText(process.execPath, path.join(home, 'moved', 'engram.mjs'), path.join(home, 'logs')));
    expect(findEngramCli({ engramHome: home }, sb.env)).toEqual({ ok: false, problem: expect.stringMatching(/moved.*missing/) });
  });
});

describe('the embedding child', () => {
  it('gives the vectors the in-process embedder gives, with its model id and dimension', async () => {
    const child = await openedReal();
    try {
      const texts = ['the car is red', 'search the notes in the vault', '', 'python typescript node rust'];
      const got = await child.embed(texts);
      const local = await loadEmbedder(model.dir, { modelId: child.modelId.replace(/#\d+$/, '') });
      expect(child.modelId).toBe(local.modelId);
      expect(child.dimension).toBe(local.dimension);
      const want = await local.embed(texts);
      expect(got).toHaveLength(texts.length);
      got.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(want[i])));
      expect(Array.from(got[0]).map((x) => x.toFixed(5))).toEqual(Array.from(model.expectedVector('the car is red')).map((x) => x.toFixed(5)));
      expect(await child.embed([])).toEqual([]);
    } finally {
      await child.dispose();
    }
  });

  it.skipIf(!posix)('restarts after kill -9, with growing delays; requests in flight fail with the reason', async () => {
    const statuses: EmbedChildStatus[] = [];
    const child = await openedReal(statuses);
    try {
      const first = child.pid!;
      // Stopped first, so the request cannot be answered before the kill lands.
      process.kill(first, 'SIGSTOP');
      const inFlight = child.embed(['the car is red']);
      process.kill(first, 'SIGKILL');
      await expect(inFlight).rejects.toThrow(/embedding child stopped \(signal SIGKILL\)/);
      await expect(child.embed(['x'])).rejects.toThrow(/restarting/);
      const second = await waitFor(() => child.status.state === 'running' && child.pid !== first && child.pid, 10_000, 'the first restart');
      expect(alive(first)).toBe(false);
      expect((await child.embed(['the automobile is red']))[0]).toHaveLength(384);

      process.kill(second, 'SIGKILL');
      await waitFor(() => child.status.state === 'running' && child.pid !== second, 10_000, 'the second restart');
      const delays = statuses.flatMap((s) => (s.state === 'restarting' ? [s.retryInMs] : []));
      expect(delays).toEqual([200, 400]);
      expect(statuses.filter((s) => s.state === 'running')).toHaveLength(3);
      expect(await child.embed(['search the notes'])).toHaveLength(1);
    } finally {
      await child.dispose();
    }
    await nothingLeft();
  });

  it.skipIf(!posix)('kills a child that stops answering, and the next one answers', async () => {
    const r = await openEmbedChild({ nodePath: process.execPath, cliPath, modelDir: model.dir }, sb.env, { backoff: { initialMs: 100 }, requestTimeoutMs: 300 });
    if (!r.ok) throw new Error(r.problem);
    const child = r.embedder;
    try {
      const hung = child.pid!;
      process.kill(hung, 'SIGSTOP');
      await expect(child.embed(['the car is red'])).rejects.toThrow('The embedding child stopped (it did not answer within 300 ms).');
      await waitFor(() => child.status.state === 'running' && child.pid !== hung, 10_000, 'the restart');
      expect(alive(hung)).toBe(false);
      expect(await child.embed(['the car is red'])).toHaveLength(1);
    } finally {
      await child.dispose();
    }
  });

  it.skipIf(!posix)('starts the delays over once a child has run for the healthy period', async () => {
    const statuses: EmbedChildStatus[] = [];
    const r = await openEmbedChild({ nodePath: process.execPath, cliPath, modelDir: model.dir }, sb.env, { backoff: { initialMs: 100, healthyMs: 1000 }, onStatus: (s) => statuses.push(s) });
    if (!r.ok) throw new Error(r.problem);
    const child = r.embedder;
    try {
      const restarted = async (pid: number) => waitFor(() => child.status.state === 'running' && child.pid !== pid && child.pid, 10_000, 'a restart');
      const second = await restarted((process.kill(child.pid!, 'SIGKILL'), child.pid!));
      const third = await restarted((process.kill(second, 'SIGKILL'), second));
      const since = Date.now();
      await waitFor(() => Date.now() - since > 1100, 3000, 'the healthy period to pass');
      process.kill(third, 'SIGKILL');
      await restarted(third);
      expect(statuses.flatMap((s) => (s.state === 'restarting' ? [s.retryInMs] : []))).toEqual([100, 200, 100]);
    } finally {
      await child.dispose();
    }
  });

  it('dispose stops the child and leaves no process, pipe or timer behind', async () => {
    const child = await openedReal();
    const pid = child.pid!;
    expect(alive(pid)).toBe(true);
    await child.embed(['note']);
    await child.dispose();
    expect(alive(pid)).toBe(false);
    expect(child.status).toEqual({ state: 'stopped' });
    expect(child.pid).toBeUndefined();
    await expect(child.embed(['note'])).rejects.toThrow(/stopped/);
    await nothingLeft();
  });

  it.skipIf(!posix)('dispose while a restart is pending clears its timer and starts nothing', async () => {
    const statuses: EmbedChildStatus[] = [];
    const child = await openEmbedChild({ nodePath: process.execPath, cliPath, modelDir: model.dir }, sb.env, { backoff: { initialMs: 60_000 }, onStatus: (s) => statuses.push(s) });
    if (!child.ok) throw new Error(child.problem);
    const pid = child.embedder.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => child.embedder.status.state === 'restarting', 10_000, 'the child to be seen dead');
    await child.embedder.dispose();
    expect(statuses.map((s) => s.state)).toEqual(['running', 'restarting', 'stopped']);
    await nothingLeft();
  });

  it.skipIf(!posix)('kills a child that ignores SIGTERM once the grace period is over', async () => {
    const stubborn = fakeCli(`
      import readline from 'node:readline';
      process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\\n'));
      setInterval(() => undefined, 1000);
      readline.createInterface({ input: process.stdin }).on('line', (l) => {
        const { id } = JSON.parse(l);
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: { available: true, modelId: 'stub#1', dimension: 2, protocolVersion: '1.2' } }) + '\\n');
      });
    `);
    const logs: string[] = [];
    const r = await EmbedChild.start({ node: process.execPath, cli: stubborn, env: sb.env, killGraceMs: 300, log: (l) => logs.push(l) });
    if (!r.ok) throw new Error(r.problem);
    const pid = r.embedder.pid!;
    const t0 = Date.now();
    await r.embedder.dispose();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(alive(pid)).toBe(false);
    expect(logs.some((l) => l.includes('ignoring SIGTERM'))).toBe(true);
  });
});

describe('when the child cannot start', () => {
  it('names the missing Node once and starts nothing', async () => {
    const r = await openEmbedChild({ nodePath: path.join(sb.root, 'nowhere', 'node'), cliPath, modelDir: model.dir }, sb.env);
    expect(r).toEqual({ ok: false, problem: expect.stringMatching(/^No Node\.js at .*nowhere/) });
    await nothingLeft();
  });

  it('says so when the Node it was given cannot be run', async () => {
    const gone = path.join(sb.root, 'vanished', 'node');
    const r = await EmbedChild.start({ node: gone, cli: cliPath, modelDir: model.dir, env: sb.env });
    expect(r).toEqual({ ok: false, problem: expect.stringContaining(`exited before it was ready (could not start ${gone}:`) });
    await nothingLeft();
  });

  it('names the missing CLI', async () => {
    const r = await openEmbedChild({ nodePath: process.execPath, engramHome: fs.mkdtempSync(path.join(sb.root, 'empty-')) }, sb.env);
    expect(r).toEqual({ ok: false, problem: expect.stringContaining('engram install') });
  });

  it('passes on the server\'s reason when there is no model, and leaves no child', async () => {
    const r = await openEmbedChild({ nodePath: process.execPath, cliPath, engramHome: sb.engramHome }, sb.env);
    expect(r).toEqual({ ok: false, problem: expect.stringMatching(/^The embedding server cannot embed: no embedding model \(.+\); run `engram model pull`\.$/) });
    await nothingLeft();
  });

  it('says why a CLI that dies at once died, without retrying', async () => {
    const dying = fakeCli(`process.stderr.write('engram: unknown command embed-server\\n'); process.exit(2);`);
    const statuses: EmbedChildStatus[] = [];
    const r = await openEmbedChild({ nodePath: process.execPath, cliPath: dying }, sb.env, { onStatus: (s) => statuses.push(s) });
    expect(r).toEqual({ ok: false, problem: 'The embedding server exited before it was ready (exit code 2: engram: unknown command embed-server).' });
    expect(statuses).toEqual([]);
    await nothingLeft();
  });
});

describe('restart delays', () => {
  it('double from one second and stop at a minute', () => {
    expect([1, 2, 3, 4, 7, 8, 20].map((n) => restartDelay(n, DEFAULT_BACKOFF))).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
  });
});
