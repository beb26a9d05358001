// `engram embed-server` as a child over stdio with the tiny real ONNX model: info, embed, bad requests, no model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { cliPath } from '../helpers/cli.js';
import { makeTinyModel, type TinyModel } from '../helpers/tiny-model.js';
import { makeSandbox, type Sandbox } from '../helpers/host.js';

async function exchange(env: NodeJS.ProcessEnv, args: string[], lines: string[]): Promise<{ id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }[]> {
  const child = spawn(process.execPath, [cliPath, 'embed-server', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const replies: unknown[] = [];
  const rl = readline.createInterface({ input: child.stdout });
  rl.on('line', (l) => replies.push(JSON.parse(l)));
  for (const l of lines) child.stdin.write(`${l}\n`);
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  return replies as never;
}

describe('engram embed-server', () => {
  let sb: Sandbox;
  let model: TinyModel;
  beforeAll(() => {
    sb = makeSandbox();
    model = makeTinyModel(path.join(sb.root, 'models', 'tiny'));
  });
  afterAll(async () => sb.cleanup());

  it('answers info and embed with unit vectors, and rejects bad requests', async () => {
    const replies = await exchange(sb.env, ['--model', model.dir], [
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'embed', params: { texts: ['the car in the vault', 'search the notes'] } }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'embed', params: { texts: 'nope' } }),
      'garbage',
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'other' }),
    ]);
    const byId = Object.fromEntries(replies.map((r) => [String(r.id), r]));
    expect(byId['1'].result).toMatchObject({ available: true, dimension: 384 });
    const vectors = (byId['2'].result!.vectors as string[]).map((b) => new Float32Array(new Uint8Array(Buffer.from(b, 'base64')).buffer));
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(384);
    expect(Math.abs(vectors[0].reduce((s, x) => s + x * x, 0) - 1)).toBeLessThan(1e-3);
    expect(byId['3'].error?.code).toBe(-32602);
    expect(byId.null.error?.code).toBe(-32700);
    expect(byId['4'].error?.code).toBe(-32601);
  });

  it('says the model is missing instead of crashing', async () => {
    const replies = await exchange(sb.env, [], [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info' }), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'embed', params: { texts: ['x'] } })]);
    expect(replies[0].result).toMatchObject({ available: false });
    expect(replies[1].error?.message).toMatch(/model/);
  });
});
