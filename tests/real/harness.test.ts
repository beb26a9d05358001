// The real-client harness itself: the pinned CLIs reach the fake model servers, and a tool round trip comes back in
// the next request. If these fail, every real-client test's assertions about "what reached the model" are void.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { realCli, realSuiteTitle, runClaude, runCodex, startFakeAnthropic, startFakeResponses, toolResults, writeCodexConfig, type FakeServer } from '../helpers/real-cli.js';

const claude = realCli('claude');
const codex = realCli('codex');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function scratch(): { home: string; cwd: string } {
  const root = makeTempDir('engram-real-');
  cleanups.push(() => removeDir(root));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  return { home, cwd };
}

function track(s: FakeServer): FakeServer {
  cleanups.push(() => s.close());
  return s;
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'harness: Claude Code against the fake Messages API'), () => {
  it('prints the scripted reply, and sends the tool result of a scripted tool call in its next request', async () => {
    const { home, cwd } = scratch();
    fs.writeFileSync(path.join(cwd, 'fact.txt'), 'the build uses pnpm 9');
    const server = track(
      await startFakeAnthropic((req) => {
        if (!req.body?.tools?.length) return { text: 'side call' };
        const results = toolResults(req.body);
        return results.length ? { text: `answer: ${results.join(' ')}` } : { toolUse: { name: 'Read', input: { file_path: path.join(cwd, 'fact.txt') } } };
      }),
    );
    const r = await runClaude({ bin: (claude as { bin: string }).bin, home, cwd, prompt: 'what does the build use?', server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json?.result).toContain('the build uses pnpm 9');
    const main = server.mainRequests();
    expect(main.length).toBeGreaterThanOrEqual(2);
    expect(toolResults(main.at(-1)!.body).join('\n')).toContain('the build uses pnpm 9');
  });
});

describe.skipIf('skip' in codex)(realSuiteTitle('codex', 'harness: Codex against the fake Responses API'), () => {
  it('prints the scripted reply of `codex exec`', async () => {
    const { home, cwd } = scratch();
    const server = track(await startFakeResponses(() => ({ text: 'codex reply 42' })));
    writeCodexConfig(home, server);
    const r = await runCodex({ bin: (codex as { bin: string }).bin, home, cwd, prompt: 'hello', server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('codex reply 42');
    expect(server.modelRequests().length).toBeGreaterThanOrEqual(1);
  });
});
