// A sandbox for the real Codex CLI's tests: a project folder, Engram on the rules backend, and Codex pointed at a fake
// Responses server. Both are closed by the caller's cleanups.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeSandbox, type Sandbox } from './host.js';
import { cleanEnv, startFakeResponses, writeCodexConfig } from './real-cli.js';

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

/** One hook as the real Codex lists it (`codex app-server`, `hooks/list`): its state key, hash and trust. */
export interface CodexListedHook {
  key: string;
  eventName: string;
  command: string;
  currentHash: string;
  trustStatus: string;
  enabled: boolean;
}

/**
 * The hooks Codex would run for `cwd` and whether each is trusted, asked of Codex itself over its app server's
 * JSON-RPC (`initialize`, then `hooks/list`): what its /hooks screen shows.
 */
export function codexHooksList(bin: string, home: string, cwd: string, timeoutMs = 60_000): Promise<CodexListedHook[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['app-server'], { cwd, env: cleanEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`codex app-server gave no hooks/list answer in ${timeoutMs} ms: ${stderr.slice(-500)}`));
    }, timeoutMs);
    const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let m: { id?: number; result?: { data?: { hooks: CodexListedHook[] }[] }; error?: unknown };
        try {
          m = JSON.parse(line) as typeof m;
        } catch {
          continue;
        }
        if (m.id === 1) {
          send({ method: 'initialized' });
          send({ id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
        } else if (m.id === 2) {
          clearTimeout(timer);
          child.kill();
          if (m.error || !m.result?.data) reject(new Error(`hooks/list failed: ${JSON.stringify(m.error)}`));
          else resolve(m.result.data.flatMap((d) => d.hooks));
        }
      }
    });
    child.on('error', reject);
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'engram-test', version: '1' } } });
  });
}
