// Anthropic Messages API (POST /v1/messages), plain or streamed (server-sent events).
import { BackendError } from './backend-error.js';
import { completeOverHttp, joinUrl, parseJson, readSse, readText, type ApiReply, type HttpBackendOptions, type PostOptions } from './http.js';
import { estimateCost, type Price } from './pricing.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

export interface AnthropicOptions extends HttpBackendOptions {
  apiKey: string;
  price?: Price;
  /** Whether its calls cost money per token: the backend registry's word (sidecar/hosting/backends.ts). */
  paid: boolean;
}

export const ANTHROPIC_VERSION = '2023-06-01';

interface MessageReply {
  content?: { type: string; text?: string }[];
  model?: string;
  usage?: { input_tokens?: number; output_tokens?: number };
  stop_reason?: string;
}

export class AnthropicBackend implements LlmBackend {
  readonly name = 'anthropic' as const;
  readonly paid: boolean;
  readonly model: string;

  constructor(private readonly opts: AnthropicOptions) {
    if (!opts.apiKey) throw new BackendError('anthropic', 'auth', 'no API key', 'set ANTHROPIC_API_KEY in the environment');
    this.model = opts.model ?? 'claude-haiku-4-5';
    this.paid = opts.paid;
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const timeoutMs = req.timeoutMs ?? this.opts.timeoutMs ?? 120_000;
    const stream = this.opts.stream ?? false;
    const body = {
      model: this.model,
      max_tokens: req.maxTokens ?? 4096,
      system: req.system,
      messages: [{ role: 'user', content: req.user }],
      ...(stream ? { stream: true } : {}),
    };
    const post: PostOptions = {
      backend: this.name,
      url: joinUrl(this.opts.baseUrl ?? 'https://api.anthropic.com', '/v1/messages'),
      headers: { 'x-api-key': this.opts.apiKey, 'anthropic-version': ANTHROPIC_VERSION, accept: stream ? 'text/event-stream' : 'application/json' },
      body,
      timeoutMs,
      fetch: this.opts.fetch,
    };
    const cost = (r: ApiReply) => estimateCost(r.model, r.input, r.output, this.opts.price);
    return completeOverHttp({ post, retry: this.opts.retry, now: this.opts.now, cost }, async (open) => {
      if (!stream) {
        const reply = parseJson(this.name, await readText(this.name, open, timeoutMs), 'reply') as MessageReply;
        const text = (reply.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
        return { text, model: reply.model ?? this.model, input: reply.usage?.input_tokens ?? 0, output: reply.usage?.output_tokens ?? 0 };
      }
      let text = '';
      let model = this.model;
      let input = 0;
      let output = 0;
      let stopped = false;
      for await (const ev of readSse(this.name, open, timeoutMs)) {
        const data = parseJson(this.name, ev.data, `stream event ${ev.event}`) as Record<string, unknown>;
        const type = (data.type as string | undefined) ?? ev.event;
        if (type === 'message_start') {
          const msg = data.message as MessageReply | undefined;
          model = msg?.model ?? model;
          input = msg?.usage?.input_tokens ?? 0;
          output = msg?.usage?.output_tokens ?? 0;
        } else if (type === 'content_block_delta') {
          const delta = data.delta as { type?: string; text?: string } | undefined;
          if (delta?.type === 'text_delta') text += delta.text ?? '';
        } else if (type === 'message_delta') {
          const usage = data.usage as { output_tokens?: number } | undefined;
          if (usage?.output_tokens !== undefined) output = usage.output_tokens;
        } else if (type === 'message_stop') {
          stopped = true;
        } else if (type === 'error') {
          const err = data.error as { type?: string; message?: string } | undefined;
          const overloaded = err?.type === 'overloaded_error' || err?.type === 'rate_limit_error';
          throw new BackendError(this.name, overloaded ? 'rate-limit' : 'server', `stream error: ${err?.message ?? 'unknown'}`);
        }
      }
      if (!stopped) throw new BackendError(this.name, 'network', 'stream ended before message_stop');
      return { text, model, input, output };
    });
  }
}
