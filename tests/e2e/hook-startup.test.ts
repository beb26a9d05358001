// The hook path loads client code only: engram.mjs hands off to the single-file hook bundle, and no npm package
// (no engine, index, model or MCP SDK) is imported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { vanishingEntry } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

describe('engram hook start-up', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
    fs.writeFileSync(path.join(sb.root, 'register.mjs'), "import { register } from 'node:module';\nregister('./trace.mjs', import.meta.url);\n");
    fs.writeFileSync(path.join(sb.root, 'trace.mjs'), `import fs from 'node:fs';\nexport async function load(url, c, next) {\n  fs.appendFileSync(${JSON.stringify(path.join(sb.root, 'loaded.txt'))}, url + '\\n');\n  return next(url, c);\n}\n`);
  });
  afterAll(async () => sb.cleanup());

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
      const loaded = fs.readFileSync(path.join(sb.root, 'loaded.txt'), 'utf8').split('\n').filter((u) => u.startsWith('file:'));
      const ours = loaded.filter((u) => !u.includes(path.basename(sb.root)));
      expect(ours.map((u) => path.basename(new URL(u).pathname)).sort()).toEqual(['engram-hook.mjs', 'engram.mjs']);
      expect(loaded.some((u) => u.includes('node_modules'))).toBe(false);
    });
  }
});
