// The MCP server's link names its client (Claude Code, Codex) with each request to a host that knows the field
// (protocol 1.7), and leaves it out for an older host, whose strict params would refuse it.
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HostLink } from '../../sidecar/mcp/host-link.js';
import { tokenPath, vaultState } from '../../sidecar/hosting/paths.js';
import { checkParams, encodeFrame, LineDecoder, parseFrame, type Method } from '../../src/core/protocol/index.js';

/** A host that says hello as `version` and answers each request with nothing, keeping what it was sent. */
function fakeHost(socket: string, token: string, version: string): { sent: { method: string; params: unknown }[]; listening: Promise<void>; close: () => Promise<void> } {
  const sent: { method: string; params: unknown }[] = [];
  const server = net.createServer((s) => {
    const decoder = new LineDecoder(1 << 20);
    s.on('data', (chunk: Buffer) => {
      for (const line of decoder.push(chunk)) {
        const f = parseFrame(line);
        if (!f.ok || !('method' in f.message) || !('id' in f.message)) continue;
        const { id, method, params } = f.message as { id: number; method: string; params: unknown };
        if (method === 'hello') {
          const ok = (params as { token?: string }).token === token;
          s.write(encodeFrame(ok ? { jsonrpc: '2.0', id, result: { protocolVersion: version, host: 'daemon', pid: 1, vault: 'v' } } : { jsonrpc: '2.0', id, error: { code: -32001, message: 'wrong token' } }));
          continue;
        }
        sent.push({ method, params });
        s.write(encodeFrame({ jsonrpc: '2.0', id, result: { notes: 3 } }));
      }
    });
  });
  const listening = new Promise<void>((r) => server.listen(socket, () => r()));
  return { sent, listening, close: () => new Promise((r) => server.close(() => r())) };
}

describe('HostLink', () => {
  let dir: string;
  let host: ReturnType<typeof fakeHost> | undefined;
  let link: HostLink | undefined;
  afterEach(async () => {
    link?.close();
    await host?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function linked(version: string): Promise<HostLink> {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-link-'));
    // The socket in this test's folder too (XDG_RUNTIME_DIR), not the machine's temp folder.
    const env = { ENGRAM_HOME: path.join(dir, 'home'), HOME: dir, XDG_RUNTIME_DIR: path.join(dir, 'run') };
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(vault);
    const state = vaultState(vault, env);
    fs.mkdirSync(path.dirname(tokenPath(env)), { recursive: true });
    fs.writeFileSync(tokenPath(env), 'secret-token\n');
    fs.mkdirSync(path.dirname(state.socket), { recursive: true });
    host = fakeHost(state.socket, 'secret-token', version);
    await host.listening;
    link = new HostLink(state, env);
    return link;
  }

  it('sends the client with each request to a 1.7 host, as the host checks it', async () => {
    const l = await linked('1.7');
    l.agent = 'codex';
    await l.call('reindex', {});
    await l.call('read', { ref: 'Kafka retention' });
    expect(host!.sent).toEqual([{ method: 'reindex', params: { agent: 'codex' } }, { method: 'read', params: { ref: 'Kafka retention', agent: 'codex' } }]);
    for (const s of host!.sent) expect(() => checkParams(s.method as Method, s.params)).not.toThrow();
  });

  it('leaves it out for an older host, and when the client named neither agent', async () => {
    const l = await linked('1.6');
    l.agent = 'claude-code';
    await l.call('reindex', {});
    l.agent = undefined;
    await l.call('status', {});
    expect(host!.sent).toEqual([{ method: 'reindex', params: {} }, { method: 'status', params: {} }]);
  });
});
