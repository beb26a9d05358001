// The plugin's embedder: `engram embed-server` run with the user's Node over stdio (onnxruntime cannot load in
// Obsidian's renderer), supervised. A child that dies is restarted with backoff; one that cannot start at all is one
// `problem` sentence, and the plugin keeps working on BM25. Desktop only: the plugin imports this file lazily.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
// Node's own timers: the supervisor belongs to the child process, not to any Obsidian window.
import { clearTimeout, setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import { errorMessage } from '../../core/errors.js';
import type { Embedder } from '../../core/ports.js';
import { MAX_EMBED_TEXTS, MAX_EMBED_TEXT_CHARS, type EmbedInfo, type EmbedResult } from '../../core/protocol/embed.js';
import { LineDecoder, MAX_FRAME_BYTES, encodeFrame, parseFrame, request } from '../../core/protocol/jsonrpc.js';
import { PROTOCOL_VERSION, parseProtocolVersion } from '../../core/protocol/version.js';
import { cliEnv, findEngramCli, findNode, type CliSettings } from './find-cli.js';

export interface Backoff {
  /** Delay before the first restart; doubled for each further crash in a row. */
  initialMs: number;
  maxMs: number;
  /** A child that ran this long before dying starts the count again. */
  healthyMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 60_000, healthyMs: 60_000 };

/** The delay before restart number `crashes` (1-based) of a run of crashes. */
export function restartDelay(crashes: number, backoff: Backoff): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, crashes - 1));
}

export type EmbedChildStatus = { state: 'running'; pid: number } | { state: 'restarting'; reason: string; retryInMs: number } | { state: 'stopped' };

export interface EmbedChildOptions {
  node: string;
  /** The CLI entry (`dist/engram.mjs`). */
  cli: string;
  /** A model folder (`--model`); default: the CLI's configured or downloaded model. */
  modelDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The child's stderr lines and the supervisor's notes (restarts, stray output). */
  log?: (line: string) => void;
  onStatus?: (status: EmbedChildStatus) => void;
  backoff?: Partial<Backoff>;
  /** After SIGTERM, how long the child has before SIGKILL. */
  killGraceMs?: number;
  /** How long the first start may take (loading a model from disk takes seconds). */
  startTimeoutMs?: number;
  /** A request unanswered this long means a hung child: it is killed, and restarted like a crashed one. */
  requestTimeoutMs?: number;
}

export type EmbedChildStart = { ok: true; embedder: EmbedChild } | { ok: false; problem: string };

interface Exit {
  /** "exit code 1", "signal SIGKILL", "could not start: …", with the last stderr line when there is one. */
  reason: string;
}

/** One run of `engram embed-server`: its pipes, its requests in flight, its exit. */
class ServerProcess {
  readonly exited: Promise<Exit>;
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly decoder = new LineDecoder();
  private nextId = 1;
  private stderrTail = '';
  private killReason?: string;
  private gone = false;
  /** Why it ended, once it has (set before the requests in flight are failed). */
  exitReason?: string;

  constructor(private readonly opts: EmbedChildOptions) {
    const args = [opts.cli, 'embed-server', ...(opts.modelDir ? ['--model', opts.modelDir] : [])];
    this.proc = spawn(opts.node, args, { env: opts.env ?? process.env, stdio: 'pipe', windowsHide: true });
    this.exited = new Promise<Exit>((resolve) => {
      const done = (reason: string) => {
        if (this.gone) return;
        this.gone = true;
        const why = this.killReason ?? (this.stderrTail ? `${reason}: ${this.stderrTail}` : reason);
        this.exitReason = why;
        for (const p of this.pending.values()) p.reject(new Error(`The embedding child stopped (${why}).`));
        this.pending.clear();
        resolve({ reason: why });
      };
      // 'close' comes once stderr is read to the end, so the reason can quote it; a grandchild holding the pipes
      // open must not keep the exit from being seen, hence the fallback.
      let fallback: ReturnType<typeof setTimeout> | undefined;
      const how = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `signal ${signal}` : `exit code ${code ?? 0}`);
      this.proc.on('exit', (code, signal) => {
        fallback = setTimeout(() => done(how(code, signal)), 1000);
      });
      this.proc.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(fallback);
        done(how(code, signal));
      });
      // Spawning failed (no such file, not executable): 'exit' may never come.
      this.proc.on('error', (e) => {
        if (this.proc.pid === undefined) done(`could not start ${opts.node}: ${errorMessage(e)}`);
      });
    });
    // Writing to a child that just died fails with EPIPE; the exit above already says why.
    this.proc.stdin.on('error', () => undefined);
    this.proc.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk: string) => {
      for (const line of chunk.split(/\r?\n/)) {
        if (!line.trim()) continue;
        this.stderrTail = line.trim().slice(0, 500);
        opts.log?.(`embed-server: ${line}`);
      }
    });
  }

  get pid(): number | undefined {
    return this.gone ? undefined : this.proc.pid;
  }

  call(method: string, params?: unknown, timeoutMs?: number): Promise<unknown> {
    if (this.gone) return Promise.reject(new Error('The embedding child is not running.'));
    const id = this.nextId++;
    const sent = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.stdin.write(encodeFrame(request(id, method, params)));
    });
    if (timeoutMs === undefined) return sent;
    const timer = setTimeout(() => this.kill(`it did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`), timeoutMs);
    return sent.finally(() => clearTimeout(timer));
  }

  /** Ends this run for a reason the requests in flight are given (a wrong model, garbage on stdout). */
  kill(reason: string): void {
    this.killReason ??= reason;
    if (!this.gone) this.proc.kill('SIGKILL');
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone and its pipes closed. */
  async terminate(graceMs: number): Promise<void> {
    this.killReason ??= 'stopped by Engram';
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (!this.gone) {
      this.proc.stdin.end();
      this.proc.kill('SIGTERM');
      timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    }
    await this.exited;
    clearTimeout(timer);
    for (const s of [this.proc.stdin, this.proc.stdout, this.proc.stderr]) {
      s.removeAllListeners();
      s.destroy();
    }
    this.proc.removeAllListeners();
  }

  private onStdout(chunk: Buffer): void {
    let lines: string[];
    try {
      lines = this.decoder.push(chunk);
    } catch (e) {
      this.kill(`its reply was too large: ${errorMessage(e)}`);
      return;
    }
    for (const line of lines) {
      const parsed = parseFrame(line);
      const msg = parsed.ok ? parsed.message : undefined;
      if (!msg || !('id' in msg) || typeof msg.id !== 'number' || !('result' in msg || 'error' in msg)) {
        this.opts.log?.(`embed-server wrote a line that is not a reply: ${line.slice(0, 200)}`);
        continue;
      }
      const p = this.pending.get(msg.id);
      if (!p) continue;
      this.pending.delete(msg.id);
      if ('error' in msg) p.reject(new Error(`The embedding child refused the request: ${msg.error.message}`));
      else p.resolve(msg.result);
    }
  }
}

/** Why `info` means this child cannot serve (no model, another protocol major), or undefined when it can. */
function unusable(info: EmbedInfo): string | undefined {
  const theirs = parseProtocolVersion(info.protocolVersion)?.major;
  if (theirs !== parseProtocolVersion(PROTOCOL_VERSION)?.major) {
    return `The Engram CLI speaks protocol ${info.protocolVersion}, this plugin ${PROTOCOL_VERSION}: update the one that is older.`;
  }
  if (!info.available) return `The embedding server has no model: ${info.reason ?? 'no reason given'}.`;
  return undefined;
}

function fromBase64(b64: string): Float32Array {
  const bytes = Buffer.from(b64, 'base64');
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export class EmbedChild implements Embedder {
  private server?: ServerProcess;
  private readonly backoff: Backoff;
  private crashes = 0;
  /** When the current child proved it serves (its `info` checked out); unset while it starts. */
  private servingSince?: number;
  private restartTimer?: ReturnType<typeof setTimeout>;
  private stopping?: Promise<void>;
  private current: EmbedChildStatus;

  private constructor(
    readonly modelId: string,
    readonly dimension: number,
    private readonly opts: EmbedChildOptions,
    server: ServerProcess,
  ) {
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.current = { state: 'running', pid: server.pid ?? 0 };
    this.adopt(server);
    this.servingSince = Date.now();
  }

  /** Starts the child and waits for its `info`; never throws: a child that cannot serve is one problem sentence. */
  static async start(opts: EmbedChildOptions): Promise<EmbedChildStart> {
    const server = new ServerProcess(opts);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeoutMs = opts.startTimeoutMs ?? 60_000;
    const outcome = await Promise.race([
      server.call('info').then(
        (info) => ({ info: info as EmbedInfo }),
        (e: unknown) => ({ error: server.exitReason !== undefined ? `The embedding server exited before it was ready (${server.exitReason}).` : errorMessage(e) }),
      ),
      new Promise<{ error: string }>((resolve) => {
        timer = setTimeout(() => resolve({ error: `The embedding server did not answer within ${Math.round(timeoutMs / 1000)} s.` }), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    const problem = 'error' in outcome ? outcome.error : unusable(outcome.info);
    if (problem !== undefined || !('info' in outcome) || !outcome.info.available) {
      await server.terminate(opts.killGraceMs ?? 3000);
      return { ok: false, problem: problem ?? 'The embedding server has no model.' };
    }
    const child = new EmbedChild(outcome.info.modelId, outcome.info.dimension, opts, server);
    opts.onStatus?.(child.current);
    return { ok: true, embedder: child };
  }

  get status(): EmbedChildStatus {
    return this.current;
  }

  /** The running child's process id (undefined while it restarts or after `dispose`). */
  get pid(): number | undefined {
    return this.server?.pid;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // Replies carry base64 Float32s (4 characters per 3 bytes): keep each under the frame limit.
    const perReply = Math.floor((MAX_FRAME_BYTES - 4096) / (Math.ceil((this.dimension * 4) / 3) * 4 + 8));
    const batch = Math.max(1, Math.min(MAX_EMBED_TEXTS, perReply));
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) {
      // The model reads only the first few hundred tokens, so the server's length cap never changes a vector.
      const slice = texts.slice(i, i + batch).map((t) => (t.length > MAX_EMBED_TEXT_CHARS ? t.slice(0, MAX_EMBED_TEXT_CHARS) : t));
      const result = (await this.running().call('embed', { texts: slice }, this.opts.requestTimeoutMs ?? 120_000)) as EmbedResult;
      if (result.modelId !== this.modelId || result.dimension !== this.dimension || result.vectors.length !== slice.length) {
        throw new Error(`The embedding child now serves ${result.modelId} (${result.dimension} dimensions), not ${this.modelId} (${this.dimension}): reload Engram.`);
      }
      for (const v of result.vectors) out.push(fromBase64(v));
    }
    return out;
  }

  /** Stops the child (SIGTERM, then SIGKILL after the grace period) and every timer; resolves when it is gone. */
  dispose(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
      const server = this.server;
      this.server = undefined;
      if (server) await server.terminate(this.opts.killGraceMs ?? 3000);
      this.setStatus({ state: 'stopped' });
    })();
    return this.stopping;
  }

  private running(): ServerProcess {
    if (this.server) return this.server;
    if (this.stopping) throw new Error('The embedding child was stopped.');
    const s = this.current;
    throw new Error(s.state === 'restarting' ? `The embedding child is restarting (${s.reason}).` : 'The embedding child is not running.');
  }

  private setStatus(status: EmbedChildStatus): void {
    this.current = status;
    this.opts.onStatus?.(status);
  }

  private adopt(server: ServerProcess): void {
    this.server = server;
    this.servingSince = undefined;
    void server.exited.then((exit) => this.onExit(server, exit));
  }

  private onExit(server: ServerProcess, exit: Exit): void {
    if (this.server !== server || this.stopping) return;
    this.server = undefined;
    if (this.servingSince !== undefined && Date.now() - this.servingSince >= this.backoff.healthyMs) this.crashes = 0;
    this.crashes++;
    const delay = restartDelay(this.crashes, this.backoff);
    this.opts.log?.(`The embedding child stopped (${exit.reason}); restarting in ${delay} ms.`);
    this.setStatus({ state: 'restarting', reason: exit.reason, retryInMs: delay });
    this.restartTimer = setTimeout(() => this.restart(), delay);
  }

  private restart(): void {
    this.restartTimer = undefined;
    if (this.stopping) return;
    const server = new ServerProcess(this.opts);
    this.adopt(server);
    // Requests sent meanwhile queue behind `info` in the child, so they are answered only by a child that checks out.
    server.call('info').then(
      (info) => {
        const e = info as EmbedInfo;
        const problem = unusable(e) ?? (e.available && (e.modelId !== this.modelId || e.dimension !== this.dimension) ? `it now serves ${e.modelId}, not ${this.modelId}` : undefined);
        if (problem) server.kill(problem);
        else if (this.server === server && server.pid !== undefined) {
          this.servingSince = Date.now();
          this.setStatus({ state: 'running', pid: server.pid });
        }
      },
      () => undefined, // its exit is reported by onExit
    );
  }
}

export interface EmbedChildSettings extends CliSettings {
  /** The Node binary; empty: found on PATH or in the usual install folders. */
  nodePath?: string;
  /** A model folder for `--model`; empty: the CLI's own setting. */
  modelDir?: string;
}

/**
 * Finds Node and the CLI, then starts the child. Never throws: whatever is missing (Node, the CLI, the model) comes
 * back as one problem sentence for a notice and the settings tab, and nothing is left running.
 */
export async function openEmbedChild(settings: EmbedChildSettings, env: NodeJS.ProcessEnv, options: Omit<EmbedChildOptions, 'node' | 'cli' | 'modelDir' | 'env'> = {}): Promise<EmbedChildStart> {
  try {
    const node = await findNode(settings.nodePath, env);
    if (!node.ok) return node;
    const cli = findEngramCli(settings, env);
    if (!cli.ok) return cli;
    return await EmbedChild.start({ ...options, node: node.path, cli: cli.path, modelDir: settings.modelDir?.trim() || undefined, env: cliEnv(settings, env) });
  } catch (e) {
    return { ok: false, problem: `The embedding child could not start: ${errorMessage(e)}` };
  }
}
