// The host's socket: Unix domain socket 0600 in a 0700 directory (a named pipe on Windows). Every connection must
// open with hello {token, protocolVersion}; the token is compared in constant time; any other first frame closes it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  LineDecoder, PROTOCOL_VERSION, RpcCode, compareProtocol, encodeFrame, failure, parseFrame, success,
  checkParams, isMethod, ParamError, mismatchAdvice, type Method, type Params, type Result, type RpcNotification, type RpcRequest,
} from '../../src/core/protocol/index.js';
import { EngramError } from '../../src/core/errors.js';
import { ensurePrivateDir, tokenPath } from './paths.js';

/** Sends a notification to the client that made the request (progress of a long call), before its answer. */
export type Notify = (method: string, params: unknown) => void;
/** One method's handler: its checked params in, its typed result out. */
export type Handler<M extends Method> = (params: Params<M>, req: RpcRequest, notify: Notify) => Promise<Result<M>>;
export type Handlers = { [M in Method]?: Handler<M> };

/** Checks a request's params for its method and runs that method's handler (undefined: this host has none). */
function handle<M extends Method>(handlers: Handlers, method: M, raw: unknown, req: RpcRequest, notify: Notify): (() => Promise<Result<M>>) | undefined {
  const handler: Handler<M> | undefined = handlers[method];
  if (!handler) return undefined;
  const params = checkParams(method, raw);
  return () => handler(params, req, notify);
}

/** Creates the per-user token (256 random bits, 0600) if it does not exist; returns it. */
export function ensureToken(env: NodeJS.ProcessEnv): string {
  const file = tokenPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return fs.readFileSync(file, 'utf8').trim();
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export interface HostServerOptions {
  socket: string;
  token: string;
  hello: () => Record<string, unknown>;
  handlers: Handlers;
  /** Any authenticated request (resets the idle timer). */
  onActivity: () => void;
  /** A newer client asked an older host to go. */
  onTakeover?: () => void;
  /** Why this client may not call this method now (the read-only mode refuses an agent's writes), or undefined. */
  refuse?: (client: string | undefined, method: Method) => string | undefined;
  /** Each answered request: which client (as its hello named it), the method and its params, the answer's size and time. */
  onCall?: (call: { client?: string; method: string; params?: unknown; answerChars: number; ms: number; error?: string; result?: unknown }) => void;
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

export class HostServer {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly opts: HostServerOptions) {}

  async listen(): Promise<void> {
    const sock = this.opts.socket;
    if (process.platform !== 'win32') {
      ensurePrivateDir(path.dirname(sock));
      // We hold host.lock, so a socket file left here is a dead host's.
      fs.rmSync(sock, { force: true });
    }
    const server = net.createServer((s) => this.accept(s));
    this.server = server;
    const oldMask = process.platform !== 'win32' ? process.umask(0o177) : 0;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(sock, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      if (process.platform !== 'win32') process.umask(oldMask);
    }
    if (process.platform !== 'win32') fs.chmodSync(sock, 0o600);
  }

  private accept(s: net.Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => s.destroy());
    const decoder = new LineDecoder(1024 * 1024);
    let authed = false;
    let client: string | undefined;
    // A client that never says hello is dropped.
    const helloTimer = setTimeout(() => !authed && s.destroy(), 5000);
    const notify: Notify = (method, params) => {
      if (!s.destroyed) s.write(encodeFrame({ jsonrpc: '2.0', method, params } satisfies RpcNotification));
    };
    s.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = decoder.push(chunk);
      } catch {
        s.destroy();
        return;
      }
      for (const line of lines) {
        if (s.destroyed) return;
        const parsed = parseFrame(line);
        if (!authed) {
          const greeted = this.hello(s, parsed);
          authed = greeted !== false;
          if (greeted !== false) client = greeted;
          if (!authed) {
            clearTimeout(helloTimer);
            s.end();
            setTimeout(() => s.destroy(), 100);
            return;
          }
          clearTimeout(helloTimer);
          continue;
        }
        if (!parsed.ok) {
          s.write(encodeFrame(failure(parsed.id, parsed.code, parsed.reason)));
          continue;
        }
        const msg = parsed.message;
        if (!('method' in msg)) continue;
        this.opts.onActivity();
        if (!('id' in msg)) {
          void this.dispatch(msg as RpcRequest, notify, client).catch(() => {});
          continue;
        }
        const started = Date.now();
        void this.dispatch(msg, notify, client).then((reply) => {
          const frame = encodeFrame(reply);
          if (!s.destroyed) s.write(frame);
          this.opts.onCall?.({ client, method: msg.method, params: msg.params, answerChars: frame.length, ms: Date.now() - started, ...('error' in reply ? { error: reply.error.message } : { result: reply.result }) });
        });
      }
    });
  }

  /** The client's name (undefined when it gave none) once its hello is accepted; false when refused. */
  private hello(s: net.Socket, parsed: ReturnType<typeof parseFrame>): string | undefined | false {
    const refuse = (code: number, message: string, data?: unknown) => {
      s.write(encodeFrame(failure(parsed.ok && 'id' in parsed.message ? (parsed.message.id as string | number) : null, code, message, data)));
      return false as const;
    };
    if (!parsed.ok || !('method' in parsed.message) || parsed.message.method !== 'hello' || !('id' in parsed.message)) {
      return refuse(RpcCode.unauthorized, 'the first frame must be hello');
    }
    let params: ReturnType<typeof checkParams<'hello'>>;
    try {
      params = checkParams('hello', parsed.message.params);
    } catch {
      return refuse(RpcCode.unauthorized, 'bad hello');
    }
    if (!tokenMatches(params.token, this.opts.token)) {
      this.opts.log('warn', 'refused a connection with a wrong token');
      return refuse(RpcCode.unauthorized, 'wrong token');
    }
    const verdict = compareProtocol(params.protocolVersion);
    if (verdict !== 'compatible') {
      if (verdict === 'client-newer' && params.takeover) setTimeout(() => this.opts.onTakeover?.(), 10);
      return refuse(RpcCode.protocolMismatch, mismatchAdvice(verdict, params.protocolVersion, PROTOCOL_VERSION), {
        protocolVersion: PROTOCOL_VERSION,
        verdict,
      });
    }
    this.opts.onActivity();
    s.write(encodeFrame(success(parsed.message.id as string | number, { protocolVersion: PROTOCOL_VERSION, ...this.opts.hello() })));
    return params.client;
  }

  private async dispatch(req: RpcRequest, notify: Notify, client?: string): Promise<ReturnType<typeof success> | ReturnType<typeof failure>> {
    if (!isMethod(req.method)) return failure(req.id, RpcCode.methodNotFound, `unknown method ${req.method}`);
    const refused = this.opts.refuse?.(client, req.method);
    if (refused) return failure(req.id, RpcCode.refused, refused, { code: 'refused' });
    let run: (() => Promise<unknown>) | undefined;
    try {
      run = handle(this.opts.handlers, req.method, req.params, req, notify);
    } catch (e) {
      if (e instanceof ParamError) return failure(req.id, RpcCode.invalidParams, e.message);
      throw e;
    }
    if (!run) return failure(req.id, RpcCode.methodNotFound, `unknown method ${req.method}`);
    try {
      return success(req.id, await run());
    } catch (e) {
      if (e instanceof EngramError) {
        const code = e.code === 'not-found' ? RpcCode.notFound : e.code === 'conflict' ? RpcCode.conflict
          : e.code === 'refused' ? RpcCode.refused : e.code === 'usage' ? RpcCode.invalidParams : RpcCode.internal;
        // `data.code` lets a client raise the same EngramError the work would have raised in its own process.
        return failure(req.id, code, e.message, { code: e.code, ...(e.hint ? { hint: e.hint } : {}) });
      }
      this.opts.log('error', `${req.method} failed: ${(e as Error)?.stack ?? String(e)}`);
      return failure(req.id, RpcCode.internal, `internal error in ${req.method}`);
    }
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (process.platform !== 'win32') fs.rmSync(this.opts.socket, { force: true });
  }
}
