// JSON-RPC 2.0 framing: one JSON message per line, with size limits and strict shape checks.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type RequestId = number | string;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}

export interface RpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: RpcErrorObject;
}

export type RpcResponse = RpcSuccess | RpcFailure;
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** Standard codes, plus Engram's own in the server-defined range. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  unauthorized: -32001,
  protocolMismatch: -32002,
  notFound: -32003,
  conflict: -32004,
  refused: -32005,
  busy: -32006,
  shuttingDown: -32007,
} as const;

/** A frame bigger than this is refused (hook payloads and recall replies are far smaller). */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is RequestId {
  return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 128);
}

export type ParsedFrame = { ok: true; message: RpcMessage } | { ok: false; code: number; reason: string; id: RequestId | null };

/** Parses one line. Anything that is not a well-formed JSON-RPC 2.0 message is reported, never thrown. */
export function parseFrame(line: string): ParsedFrame {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { ok: false, code: RpcCode.parseError, reason: 'not JSON', id: null };
  }
  if (!isObject(v) || v.jsonrpc !== '2.0') return { ok: false, code: RpcCode.invalidRequest, reason: 'not a JSON-RPC 2.0 object', id: null };
  const id = 'id' in v ? v.id : undefined;
  if (id !== undefined && id !== null && !isId(id)) return { ok: false, code: RpcCode.invalidRequest, reason: 'bad id', id: null };
  if (typeof v.method === 'string') {
    if (v.method.length === 0 || v.method.length > 64) return { ok: false, code: RpcCode.invalidRequest, reason: 'bad method', id: id ?? null };
    if ('params' in v && v.params !== undefined && !isObject(v.params) && !Array.isArray(v.params)) {
      return { ok: false, code: RpcCode.invalidRequest, reason: 'params must be an object', id: id ?? null };
    }
    if (id === undefined) return { ok: true, message: { jsonrpc: '2.0', method: v.method, params: v.params } };
    if (id === null) return { ok: false, code: RpcCode.invalidRequest, reason: 'null id', id: null };
    return { ok: true, message: { jsonrpc: '2.0', id, method: v.method, params: v.params } };
  }
  if (id === undefined) return { ok: false, code: RpcCode.invalidRequest, reason: 'no method and no id', id: null };
  if ('result' in v) {
    if (id === null) return { ok: false, code: RpcCode.invalidRequest, reason: 'null id', id: null };
    return { ok: true, message: { jsonrpc: '2.0', id, result: v.result } };
  }
  if (isObject(v.error) && typeof v.error.code === 'number' && typeof v.error.message === 'string') {
    return { ok: true, message: { jsonrpc: '2.0', id, error: { code: v.error.code, message: v.error.message, data: v.error.data } } };
  }
  return { ok: false, code: RpcCode.invalidRequest, reason: 'neither request nor response', id };
}

export function encodeFrame(message: RpcMessage): string {
  return `${JSON.stringify(message)}\n`;
}

export function request(id: RequestId, method: string, params?: unknown): RpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function success(id: RequestId, result: unknown): RpcSuccess {
  return { jsonrpc: '2.0', id, result: result === undefined ? null : result };
}

export function failure(id: RequestId | null, code: number, message: string, data?: unknown): RpcFailure {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * Splits a byte stream into lines. Keeps at most MAX_FRAME_BYTES of an unfinished line; a longer line is an
 * error (the caller closes the connection) rather than unbounded memory.
 */
export class LineDecoder {
  private buffer = '';
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  /** Returns complete lines, or throws when a line exceeds the limit. */
  push(chunk: Uint8Array | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let nl = this.buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim()) lines.push(line);
      nl = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > this.maxBytes) throw new Error(`frame larger than ${this.maxBytes} bytes`);
    return lines;
  }
}
