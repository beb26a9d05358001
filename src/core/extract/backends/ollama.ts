// Ollama's /api/chat with `format: "json"`, plain or streamed (one JSON object per line).
import { BackendError } from './backend-error.js';
import { chatMessages, completeOverHttp, joinUrl, parseJson, readLines, readText, type HttpBackendOptions, type PostOptions } from './http.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

export interface OllamaOptions extends HttpBackendOptions {
  /** Context window to ask for (Ollama's default of 2k–4k tokens truncates transcripts silently). */
  numCtx?: number;
  /** Whether its calls cost money per token: the backend registry's word (sidecar/hosting/backends.ts). */
  paid: boolean;
}

interface ChatChunk {
  model?: string;
  message?: { role?: string; content?: string };
  done?: boolean;
  error?: string;
  prompt_eval_count?: number;
  eval_count?: number;
}

export class OllamaBackend implements LlmBackend {
  readonly name = 'ollama' as const;
  readonly paid: boolean;
  readonly model: string;

  constructor(private readonly opts: OllamaOptions) {
    this.model = opts.model ?? 'qwen2.5:7b';
    this.paid = opts.paid;
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const timeoutMs = req.timeoutMs ?? this.opts.timeoutMs ?? 300_000;
    const stream = this.opts.stream ?? false;
    const body = {
      model: this.model,
      messages: chatMessages(req),
      stream,
      ...(req.json === false ? {} : { format: 'json' }),
      options: { num_ctx: this.opts.numCtx ?? 32_768, ...(req.maxTokens ? { num_predict: req.maxTokens } : {}) },
    };
    const post: PostOptions = {
      backend: this.name,
      url: joinUrl(this.opts.baseUrl ?? 'http://127.0.0.1:11434', '/api/chat'),
      headers: {},
      body,
      timeoutMs,
      fetch: this.opts.fetch,
    };
    return completeOverHttp({ post, retry: this.opts.retry, now: this.opts.now, cost: () => 0 }, async (open) => {
      const chunks: ChatChunk[] = [];
      if (stream) {
        for await (const line of readLines(this.name, open, timeoutMs)) {
          if (line.trim()) chunks.push(parseJson(this.name, line, 'stream line') as ChatChunk);
        }
        if (!chunks.at(-1)?.done) throw new BackendError(this.name, 'network', 'stream ended before done:true');
      } else {
        chunks.push(parseJson(this.name, await readText(this.name, open, timeoutMs), 'reply') as ChatChunk);
      }
      const failed = chunks.find((c) => c.error);
      if (failed) throw new BackendError(this.name, 'reply', failed.error ?? 'error');
      const last = chunks[chunks.length - 1] ?? {};
      return {
        text: chunks.map((c) => c.message?.content ?? '').join(''),
        model: last.model ?? this.model,
        input: last.prompt_eval_count ?? 0,
        output: last.eval_count ?? 0,
      };
    });
  }
}
