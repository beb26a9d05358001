// A client connection to the vault's host: hello with the token first, then requests, all under a deadline.
import fs from 'node:fs';
import net from 'node:net';
import { PROTOCOL_VERSION, LineDecoder, encodeFrame, parseFrame, request, resultOf, type Method, type Params, type Result, type RpcResponse } from '../../src/core/protocol/index.js';
import type { HelloResult } from '../../src/core/protocol/messages.js';
import { EngramError } from '../../src/core/errors.js';
import { tokenPath } from './paths.js';

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

export function readToken(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return fs.readFileSync(tokenPath(env), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface ConnectOptions {
  socket: string;
  env: NodeJS.ProcessEnv;
  /** Absolute time (epoch ms) after which everything gives up. */
  deadline: number;
  client?: string;
  takeover?: boolean;
  /** Gives up before the deadline (a hook that found its host stopped rather than busy). */
  signal?: AbortSignal;
}

export class HostConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private closed = false;
  hello!: HelloResult;
  /** Called with each notification the host sends (progress of a long call). */
  onNotification?: (method: string, params: unknown) => void;

  private constructor(private readonly sock: net.Socket) {
    const decoder = new LineDecoder();
    sock.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = decoder.push(chunk);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
      for (const line of lines) {
        const parsed = parseFrame(line);
        if (!parsed.ok) continue;
        if ('method' in parsed.message) {
          if (!('id' in parsed.message)) this.onNotification?.(parsed.message.method, parsed.message.params);
          continue;
        }
        const msg = parsed.message as RpcResponse;
        const waiter = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
        if (!waiter) continue;
        this.pending.delete(msg.id as number);
        if ('error' in msg) waiter.reject(new RpcError(msg.error.code, msg.error.message, msg.error.data));
        else waiter.resolve(msg.result);
      }
    });
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new Error('the host closed the connection')));
  }

  private fail(e: Error): void {
    this.closed = true;
    for (const w of this.pending.values()) w.reject(e);
    this.pending.clear();
  }

  /** Connects and says hello; rejects with ECONNREFUSED/ENOENT-coded errors when no host listens. */
  static async open(opts: ConnectOptions): Promise<HostConnection> {
    const token = readToken(opts.env);
    if (!token) throw new EngramError('not-found', 'no token file yet (no host has run)');
    opts.signal?.throwIfAborted();
    const sock = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(opts.socket);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new EngramError('timeout', 'timed out connecting to the host'));
      }, Math.max(1, opts.deadline - Date.now()));
      const abort = () => {
        clearTimeout(timer);
        s.destroy();
        reject(opts.signal!.reason);
      };
      opts.signal?.addEventListener('abort', abort, { once: true });
      s.once('connect', () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', abort);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', abort);
        reject(e);
      });
    });
    const conn = new HostConnection(sock);
    const abort = () => conn.fail(opts.signal!.reason as Error);
    opts.signal?.addEventListener('abort', abort, { once: true });
    try {
      conn.hello = await conn.call('hello', {
        token,
        protocolVersion: PROTOCOL_VERSION,
        client: opts.client,
        takeover: opts.takeover,
      }, opts.deadline);
    } catch (e) {
      conn.close();
      throw e;
    } finally {
      opts.signal?.removeEventListener('abort', abort);
    }
    return conn;
  }

  /** One request to the host, answered with its method's result type. */
  async call<M extends Method>(method: M, params: Params<M>, deadline: number): Promise<Result<M>> {
    return resultOf(method, await this.request(method, params, deadline));
  }

  /** One request as it goes on the wire (any method name, any params: the host checks them). */
  request(method: string, params: unknown, deadline: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new EngramError('timeout', `the host did not answer ${method} in time`));
      }, Math.max(1, deadline - Date.now()));
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.sock.write(encodeFrame(request(id, method, params ?? {})));
    });
  }

  /** Sends a request and does not wait for its answer beyond the write (used by hooks that must not wait). */
  async send<M extends Method>(method: M, params: Params<M>): Promise<void> {
    const id = this.nextId++;
    await new Promise<void>((resolve) => this.sock.write(encodeFrame(request(id, method, params ?? {})), () => resolve()));
  }

  close(): void {
    this.closed = true;
    this.sock.end();
    this.sock.destroy();
  }
}

export function isNoHost(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK' || (e instanceof EngramError && e.code === 'not-found');
}
