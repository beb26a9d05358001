// The hook path loads client code only: engram.mjs hands off to the single-file hook bundle, and no npm package
// (no engine, index, model or MCP SDK) is imported. The host a hook starts loads as one file too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, runCli, vanishingEntry } from '../helpers/cli.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/host.js';

describe('engram hook start-up', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
    fs.writeFileSync(path.join(sb.root, 'register.mjs'), "import { register } from 'node:module';\nregister('./trace.mjs', import.meta.url);\n");
    fs.writeFileSync(path.join(sb.root, 'trace.mjs'), `import fs from 'node:fs';\nexport async function load(url, c, next) {\n  fs.appendFileSync(${JSON.stringify(path.join(sb.root, 'loaded.txt'))}, url + '\\n');\n  return next(url, c);\n}\n`);
  });
  afterAll(async () => sb.cleanup());

  /** The files of ours (not the sandbox's tracer) and whether any npm package was loaded as a module. */
  const loadedFiles = () => {
    const loaded = fs.readFileSync(path.join(sb.root, 'loaded.txt'), 'utf8').split('\n').filter((u) => u.startsWith('file:'));
    const ours = loaded.filter((u) => !u.includes(path.basename(sb.root)));
    return { ours: ours.map((u) => path.basename(new URL(u).pathname)).sort(), packages: loaded.filter((u) => u.includes('node_modules')) };
  };

  it('the host a hook starts (serve --vault with ENGRAM_DAEMON) loads engram.mjs and the host bundle only', async () => {
    fs.rmSync(path.join(sb.root, 'loaded.txt'), { force: true });
    // As start-host.ts spawns it.
    const host = spawn(process.execPath, ['--import', path.join(sb.root, 'register.mjs'), cliPath, 'serve', '--vault', sb.vault], { env: { ...sb.env, ENGRAM_DAEMON: '1' }, stdio: 'ignore' });
    const exited = new Promise((r) => host.on('exit', r));
    await waitFor(() => JSON.parse(runCli(['status', '--json'], { env: sb.env }).stdout).host?.index?.ready, 60_000, 'the host ready', sb.logs);
    expect(runCli(['serve', '--stop'], { env: sb.env }).code).toBe(0);
    await exited;
    expect(loadedFiles()).toEqual({ ours: ['engram-host.mjs', 'engram.mjs'], packages: [] });
  });

  for (const event of ['UserPromptSubmit', 'Stop']) {
    it(`${event} loads only engram.mjs and the hook bundle`, () => {
      fs.rmSync(path.join(sb.root, 'loaded.txt'), { force: true });
      // Run through a script that is gone by the time the hook would start a host with it: no host starts.
      const r = spawnSync(process.execPath, ['--import', path.join(sb.root, 'register.mjs'), vanishingEntry(sb.root), 'hook', event], {
        env: sb.env,
        input: JSON.stringify({ session_id: 's', cwd: sb.root, prompt: 'hello there friends', transcript_path: path.join(sb.root, 'none.jsonl') }),
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(loadedFiles()).toEqual({ ours: ['engram-hook.mjs', 'engram.mjs'], packages: [] });
    });
  }
});
