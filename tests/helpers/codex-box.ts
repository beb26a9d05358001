// A sandbox for the real Codex CLI's tests: a project folder, Engram on the rules backend, and Codex pointed at a fake
// Responses server. Both are closed by the caller's cleanups.
import fs from 'node:fs';
import path from 'node:path';
import { makeSandbox, type Sandbox } from './host.js';
import { startFakeResponses, writeCodexConfig } from './real-cli.js';

export async function codexSandbox(
  finishedAfterSeconds: number,
  cleanups: (() => Promise<void> | void)[],
): Promise<{ sb: Sandbox; cwd: string; server: Awaited<ReturnType<typeof startFakeResponses>> }> {
  const sb = makeSandbox();
  cleanups.push(() => sb.cleanup());
  const cwd = path.join(sb.root, 'acme');
  fs.mkdirSync(cwd);
  fs.writeFileSync(path.join(sb.engramHome, 'config.json'), JSON.stringify({ version: 1, vault_path: sb.vault, backend: 'rules', codex: { finished_after_seconds: finishedAfterSeconds } }));
  const server = await startFakeResponses(() => ({ text: 'Noted.' }));
  cleanups.push(() => server.close());
  writeCodexConfig(sb.home, server);
  return { sb, cwd, server };
}
