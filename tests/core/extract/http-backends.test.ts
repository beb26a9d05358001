// Local HTTP servers speaking the Anthropic, Ollama and OpenAI wire formats check what the backends send
// and how they read plain and streamed replies, retries and errors.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicBackend } from '../../../src/core/extract/backends/anthropic.js';
import { OllamaBackend } from '../../../src/core/extract/backends/ollama.js';
import { OpenAiBackend } from '../../../src/core/extract/backends/openai.js';
import { BackendError } from '../../../src/core/extract/backends/backend-error.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Handler = (seen: Seen, res: http.ServerResponse, n: number) => void;

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function serve(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: data ? (JSON.parse(data) as Record<string, unknown>) : {} };
      seen.push(s);
      handler(s, res, seen.length);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, sleep: () => Promise.resolve() };
const req = { system: 'SYSTEM', user: 'USER', json: true, maxTokens: 300 };
const REPLY = '{"beats":[]}';

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sse(res: http.ServerResponse, events: ({ event?: string; data: unknown } | string)[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) {
    if (typeof e === 'string') res.write(`data: ${e}\n\n`);
    else res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

describe('anthropic backend (Messages API)', () => {
  it('sends the key, version and body schema, and reads a plain reply with usage and cost', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 200, { id: 'msg_1', type: 'message', model: 'claude-haiku-4-5', content: [{ type: 'text', text: REPLY }], usage: { input_tokens: 1200, output_tokens: 80 }, stop_reason: 'end_turn' }));
    const b = new AnthropicBackend({ paid: true, apiKey: 'sk-test-123', baseUrl: url, retry: fastRetry });
    const r = await b.complete(req);
    expect(r.text).toBe(REPLY);
    expect(r.usage).toEqual({ inputTokens: 1200, outputTokens: 80 });
    expect(r.costUsd).toBeCloseTo((1200 * 1 + 80 * 5) / 1e6, 9);
    const s = seen[0];
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/v1/messages');
    expect(s.headers['x-api-key']).toBe('sk-test-123');
    expect(s.headers['anthropic-version']).toBe('2023-06-01');
    expect(s.headers['content-type']).toBe('application/json');
    expect(s.body).toEqual({ model: 'claude-haiku-4-5', max_tokens: 300, system: 'SYSTEM', messages: [{ role: 'user', content: 'USER' }] });
  });

  it('reads a streamed reply in event order', async () => {
    const { url, seen } = await serve((_s, res) =>
      sse(res, [
        { event: 'message_start', data: { type: 'message_start', message: { model: 'claude-haiku-4-5', usage: { input_tokens: 50, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'ping', data: { type: 'ping' } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '{"beats"' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ':[]}' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
    );
    const r = await new AnthropicBackend({ paid: true, apiKey: 'k', baseUrl: url, stream: true, retry: fastRetry }).complete(req);
    expect(r.text).toBe(REPLY);
    expect(r.usage).toEqual({ inputTokens: 50, outputTokens: 9 });
    expect(seen[0].body.stream).toBe(true);
    expect(seen[0].headers.accept).toBe('text/event-stream');
  });

  it('retries 429 (honouring retry-after) and 500, then succeeds', async () => {
    const { url, seen } = await serve((_s, res, n) => {
      if (n === 1) json(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '0' });
      else if (n === 2) json(res, 500, { type: 'error', error: { type: 'api_error', message: 'oops' } });
      else json(res, 200, { content: [{ type: 'text', text: REPLY }], usage: { input_tokens: 1, output_tokens: 1 } });
    });
    const r = await new AnthropicBackend({ paid: true, apiKey: 'k', baseUrl: url, retry: fastRetry }).complete(req);
    expect(r.attempts).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it('does not retry an auth error, and never puts the key in the message', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    const err = await new AnthropicBackend({ paid: true, apiKey: 'sk-secret-999', baseUrl: url, retry: fastRetry }).complete(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).failure).toBe('auth');
    expect((err as BackendError).message).not.toContain('sk-secret-999');
    expect(seen).toHaveLength(1);
    expect(() => new AnthropicBackend({ paid: true, apiKey: '' })).toThrow(/no API key/);
  });

  it('gives up after the attempts on persistent 5xx, and reports a stream that stops early', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 503, { error: 'overloaded' }));
    const err = (await new AnthropicBackend({ paid: true, apiKey: 'k', baseUrl: url, retry: fastRetry }).complete(req).catch((e: unknown) => e)) as BackendError;
    expect(err.failure).toBe('server');
    expect(seen).toHaveLength(3);
    const cut = await serve((_s, res) => sse(res, [{ event: 'message_start', data: { type: 'message_start', message: { usage: { input_tokens: 1 } } } }]));
    const err2 = (await new AnthropicBackend({ paid: true, apiKey: 'k', baseUrl: cut.url, stream: true, retry: fastRetry }).complete(req).catch((e: unknown) => e)) as BackendError;
    expect(err2.message).toMatch(/before message_stop/);
  });

  it('times out a server that never answers', async () => {
    const { url } = await serve(() => undefined);
    const err = (await new AnthropicBackend({ paid: true, apiKey: 'k', baseUrl: url, retry: { ...fastRetry, attempts: 1 } }).complete({ ...req, timeoutMs: 200 }).catch((e: unknown) => e)) as BackendError;
    expect(err.failure).toBe('timeout');
  });
});

describe('ollama backend (/api/chat)', () => {
  it('asks for JSON and reads a plain reply', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 200, { model: 'qwen2.5:7b', message: { role: 'assistant', content: REPLY }, done: true, prompt_eval_count: 700, eval_count: 40 }));
    const r = await new OllamaBackend({ paid: false, baseUrl: url, retry: fastRetry }).complete(req);
    expect(r).toMatchObject({ text: REPLY, usage: { inputTokens: 700, outputTokens: 40 }, costUsd: 0 });
    expect(seen[0].url).toBe('/api/chat');
    expect(seen[0].body).toMatchObject({ model: 'qwen2.5:7b', format: 'json', stream: false, messages: [{ role: 'system', content: 'SYSTEM' }, { role: 'user', content: 'USER' }] });
    expect((seen[0].body.options as Record<string, number>).num_predict).toBe(300);
  });

  it('reads a streamed reply (one JSON object per line)', async () => {
    const { url } = await serve((_s, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ message: { content: '{"beats":' }, done: false })}\n`);
      res.write(`${JSON.stringify({ message: { content: '[]}' }, done: false })}\n`);
      res.end(`${JSON.stringify({ message: { content: '' }, done: true, prompt_eval_count: 5, eval_count: 3 })}\n`);
    });
    const r = await new OllamaBackend({ paid: false, baseUrl: url, stream: true, retry: fastRetry }).complete(req);
    expect(r.text).toBe(REPLY);
    expect(r.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
  });

  it('reports a model that is not pulled (404) without retrying, and a refused connection as network', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 404, { error: "model 'x' not found, try pulling it first" }));
    const err = (await new OllamaBackend({ paid: false, baseUrl: url, retry: fastRetry }).complete(req).catch((e: unknown) => e)) as BackendError;
    expect(err.failure).toBe('request');
    expect(err.message).toMatch(/not found/);
    expect(seen).toHaveLength(1);
    const down = (await new OllamaBackend({ paid: false, baseUrl: 'http://127.0.0.1:1', retry: fastRetry }).complete(req).catch((e: unknown) => e)) as BackendError;
    expect(down.failure).toBe('network');
  });
});

describe('openai-compatible backend (/v1/chat/completions)', () => {
  it('sends a bearer key and json mode, and reads a plain reply', async () => {
    const { url, seen } = await serve((_s, res) => json(res, 200, { id: 'c1', model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 30 } }));
    const b = new OpenAiBackend({ baseUrl: url, apiKey: 'sk-o', retry: fastRetry, paid: false });
    expect(b.paid).toBe(false);
    const r = await b.complete(req);
    expect(r).toMatchObject({ text: REPLY, usage: { inputTokens: 900, outputTokens: 30 } });
    expect(seen[0].url).toBe('/v1/chat/completions');
    expect(seen[0].headers.authorization).toBe('Bearer sk-o');
    expect(seen[0].body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 300, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: 'SYSTEM' }, { role: 'user', content: 'USER' }] });
    expect(seen[0].body.stream).toBeUndefined();
  });

  it('reads a streamed reply ending in [DONE], with usage in the last chunk; a base URL ending in /v1 is not doubled', async () => {
    const { url, seen } = await serve((_s, res) =>
      sse(res, [
        { data: { model: 'local-model', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] } },
        { data: { choices: [{ index: 0, delta: { content: '{"beats"' } }] } },
        { data: { choices: [{ index: 0, delta: { content: ':[]}' }, finish_reason: 'stop' }] } },
        { data: { choices: [], usage: { prompt_tokens: 11, completion_tokens: 4 } } },
        '[DONE]',
      ]),
    );
    const r = await new OpenAiBackend({ baseUrl: `${url}/v1`, stream: true, retry: fastRetry, paid: false }).complete(req);
    expect(r.text).toBe(REPLY);
    expect(r.usage).toEqual({ inputTokens: 11, outputTokens: 4 });
    expect(r.model).toBe('local-model');
    expect(seen[0].url).toBe('/v1/chat/completions');
    expect(seen[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(seen[0].headers.authorization).toBeUndefined();
  });

  it('needs a key for api.openai.com', () => {
    expect(() => new OpenAiBackend({ paid: true })).toThrow(/no API key/);
  });
});
