// Any OpenAI-compatible /v1/chat/completions server (OpenAI, LM Studio, vLLM, llama.cpp server, OpenRouter…),
// plain or streamed (server-sent events ending with `data: [DONE]`).
import { BackendError } from './backend-error.js';
import { chatMessages, completeOverHttp, joinUrl, parseJson, readSse, readText, type ApiReply, type HttpBackendOptions, type PostOptions } from './http.js';
import { estimateCost, type Price } from './pricing.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';
import { isPaidBackend } from '../usage.js';

export interface OpenAiOptions extends HttpBackendOptions {
  /** Optional: local servers often need none. */
  apiKey?: string;
  price?: Price;
  /** Local servers are free; a remote one (the default URL) is paid. */
  paid?: boolean;
  /** Send `response_format: json_object` (not every server supports it). */
  jsonMode?: boolean;
}

interface ChatReply {
  model?: string;
  choices?: { message?: { content?: string | null }; delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

export const OPENAI_DEFAULT_URL = 'https://api.openai.com';

export class OpenAiBackend implements LlmBackend {
  readonly name = 'openai' as const;
  readonly paid: boolean;
  readonly model: string;
  private readonly baseUrl: string;

  constructor(private readonly opts: OpenAiOptions = {}) {
    this.baseUrl = opts.baseUrl ?? OPENAI_DEFAULT_URL;
    this.model = opts.model ?? 'gpt-4o-mini';
    this.paid = opts.paid ?? isPaidBackend('openai', this.baseUrl);
    if (/^https:\/\/api\.openai\.com(\/|$)/.test(this.baseUrl) && !opts.apiKey) {
      throw new BackendError('openai', 'auth', 'no API key', 'set OPENAI_API_KEY, or point openai_base_url at a local server');
    }
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const timeoutMs = req.timeoutMs ?? this.opts.timeoutMs ?? 180_000;
    const stream = this.opts.stream ?? false;
    const body = {
      model: this.model,
      messages: chatMessages(req),
      max_tokens: req.maxTokens ?? 4096,
      temperature: 0,
      ...(req.json !== false && (this.opts.jsonMode ?? true) ? { response_format: { type: 'json_object' } } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
    // The base URL may or may not already end in /v1 (OpenRouter: …/api/v1; LM Studio: …:1234/v1).
    const path = /\/v1\/?$/.test(this.baseUrl) ? 'chat/completions' : 'v1/chat/completions';
    const post: PostOptions = {
      backend: this.name,
      url: joinUrl(this.baseUrl, path),
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {},
      body,
      timeoutMs,
      fetch: this.opts.fetch,
    };
    const cost = (r: ApiReply) => (this.paid ? estimateCost(r.model, r.input, r.output, this.opts.price) : 0);
    return completeOverHttp({ post, retry: this.opts.retry, now: this.opts.now, cost }, async (open) => {
      if (!stream) {
        const reply = parseJson(this.name, await readText(this.name, open, timeoutMs), 'reply') as ChatReply;
        if (reply.error) throw new BackendError(this.name, 'reply', reply.error.message ?? 'error');
        return {
          text: reply.choices?.[0]?.message?.content ?? '',
          model: reply.model ?? this.model,
          input: reply.usage?.prompt_tokens ?? 0,
          output: reply.usage?.completion_tokens ?? 0,
        };
      }
      let text = '';
      let model = this.model;
      let input = 0;
      let output = 0;
      let finished = false;
      for await (const ev of readSse(this.name, open, timeoutMs)) {
        if (ev.data === '[DONE]') {
          finished = true;
          break;
        }
        const chunk = parseJson(this.name, ev.data, 'stream chunk') as ChatReply;
        if (chunk.error) throw new BackendError(this.name, 'reply', chunk.error.message ?? 'error');
        model = chunk.model ?? model;
        text += chunk.choices?.[0]?.delta?.content ?? '';
        if (chunk.usage) {
          input = chunk.usage.prompt_tokens ?? input;
          output = chunk.usage.completion_tokens ?? output;
        }
      }
      if (!finished) throw new BackendError(this.name, 'network', 'stream ended before [DONE]');
      return { text, model, input, output };
    });
  }
}
