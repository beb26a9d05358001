// HTTP for the API backends: global fetch (a web API, fine in core), a deadline, typed errors, and
// line/SSE readers for streamed replies. Keys travel only in headers and never appear in messages.
import { BackendError, failureForStatus } from './backend-error.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
import type { BackendName, CompletionRequest, CompletionResult } from './types.js';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** The options every API backend takes; each backend adds its own (keys, price, JSON mode…). */
export interface HttpBackendOptions {
  model?: string;
  baseUrl?: string;
  stream?: boolean;
  timeoutMs?: number;
  retry?: RetryPolicy;
  fetch?: FetchLike;
  now?: () => number;
}

export interface PostOptions {
  backend: BackendName;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  fetch?: FetchLike;
}

export interface OpenResponse {
  response: Response;
  /** Call when done reading, to clear the deadline. */
  done: () => void;
}

function retryAfter(response: Response): number | undefined {
  const v = response.headers.get('retry-after');
  if (!v) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** POSTs JSON; resolves with the open response when the status is 2xx, otherwise throws a BackendError. */
export async function postJson(opts: PostOptions): Promise<OpenResponse> {
  const controller = new AbortController();
  // Core runs in Node too (the sidecar), where there is no `window`; Obsidian's requestUrl cannot stream.
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  const done = () => clearTimeout(timer);
  const doFetch: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  let response: Response;
  try {
    response = await doFetch(opts.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: JSON.stringify(opts.body),
      signal: controller.signal,
    });
  } catch (e) {
    done();
    if (controller.signal.aborted) throw new BackendError(opts.backend, 'timeout', `no reply from ${opts.url} within ${opts.timeoutMs} ms`);
    throw new BackendError(opts.backend, 'network', `cannot reach ${opts.url}: ${(e as Error).message}`, 'check that the server is running and the URL is right');
  }
  if (!response.ok) {
    let detail = '';
    try {
      detail = (await response.text()).slice(0, 300).replace(/\s+/g, ' ');
    } catch {
      // The body is only for the message.
    }
    done();
    const failure = failureForStatus(response.status);
    const hint = failure === 'auth' ? 'check the API key environment variable for this backend' : undefined;
    throw new BackendError(opts.backend, failure, `HTTP ${response.status} from ${opts.url}${detail ? `: ${detail}` : ''}`, hint, retryAfter(response), response.status);
  }
  return { response, done };
}

/** Reads the whole body as text, mapping an abort to a timeout error. */
export async function readText(backend: BackendName, open: OpenResponse, timeoutMs: number): Promise<string> {
  try {
    return await open.response.text();
  } catch (e) {
    throw streamError(backend, e, timeoutMs);
  } finally {
    open.done();
  }
}

function streamError(backend: BackendName, e: unknown, timeoutMs: number): BackendError {
  const name = (e as Error)?.name;
  if (name === 'AbortError') return new BackendError(backend, 'timeout', `reply not finished within ${timeoutMs} ms`);
  return new BackendError(backend, 'network', `reply interrupted: ${(e as Error)?.message ?? String(e)}`);
}

/** Yields the body's lines (without line breaks) as they arrive. */
export async function* readLines(backend: BackendName, open: OpenResponse, timeoutMs: number): AsyncGenerator<string> {
  const body = open.response.body;
  if (!body) {
    open.done();
    return;
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw streamError(backend, e, timeoutMs);
      }
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        yield buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
      }
    }
    buffer += decoder.decode();
    if (buffer.length) yield buffer;
  } finally {
    open.done();
    reader.releaseLock();
  }
}

export interface SseEvent {
  event: string;
  data: string;
}

/** Parses a text/event-stream body into events (multi-line data joined by newlines). */
export async function* readSse(backend: BackendName, open: OpenResponse, timeoutMs: number): AsyncGenerator<SseEvent> {
  let event = 'message';
  let data: string[] = [];
  for await (const line of readLines(backend, open, timeoutMs)) {
    if (line === '') {
      if (data.length) yield { event, data: data.join('\n') };
      event = 'message';
      data = [];
    } else if (line.startsWith(':')) {
      continue;
    } else {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
  if (data.length) yield { event, data: data.join('\n') };
}

export function parseJson(backend: BackendName, text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BackendError(backend, 'reply', `${what} is not JSON: ${text.slice(0, 120)}`);
  }
}

/** A request's system prompt and user text as chat messages (the OpenAI chat format, which Ollama's /api/chat shares). */
export function chatMessages(req: Pick<CompletionRequest, 'system' | 'user'>): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    { role: 'system', content: req.system },
    { role: 'user', content: req.user },
  ];
}

/** Joins a base URL and a path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** What one attempt read from an API server, before timing and cost are added. */
export interface ApiReply {
  text: string;
  model: string;
  input: number;
  output: number;
}

export interface ApiCall {
  post: PostOptions;
  retry?: RetryPolicy;
  now?: () => number;
  /** Estimated dollars for the reply (0 for a free server). */
  cost: (reply: ApiReply) => number;
}

/**
 * One completion against an API backend: POSTs under the retry policy (a fresh request each attempt),
 * lets `read` turn the open response into text and token counts, and shapes the result every API backend returns.
 */
export async function completeOverHttp(call: ApiCall, read: (open: OpenResponse) => Promise<ApiReply>): Promise<CompletionResult> {
  const now = call.now ?? Date.now;
  const started = now();
  const { value, attempts } = await withRetry(async () => read(await postJson(call.post)), call.retry ?? DEFAULT_RETRY);
  return {
    text: value.text,
    model: value.model,
    usage: { inputTokens: value.input, outputTokens: value.output },
    costUsd: call.cost(value),
    durationMs: now() - started,
    attempts,
  };
}
