// The plugin's embedder: `engram embed-server` run with the user's Node over stdio (onnxruntime cannot load in
// Obsidian's renderer), supervised. A child that dies is restarted with backoff; one that cannot start at all is one
// `problem` sentence, and the plugin keeps working on BM25. Desktop only: the plugin imports this file lazily.
// Node's own timers: the supervisor belongs to the child process, not to any Obsidian window.
import { clearTimeout, setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import { errorMessage } from '../../core/errors.js';
import type { Embedder } from '../../core/ports.js';
import { MAX_EMBED_TEXTS, MAX_EMBED_TEXT_CHARS, type EmbedInfo } from '../../core/protocol/embed.js';
import { MAX_FRAME_BYTES } from '../../core/protocol/jsonrpc.js';
import { PROTOCOL_VERSION, parseProtocolVersion } from '../../core/protocol/version.js';
import { ServerProcess, type Exit, type ServerCommand } from './embed-server-process.js';
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

export interface EmbedChildOptions extends ServerCommand {
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

/** Why `info` means this child cannot serve (no model, another protocol major), or undefined when it can. */
function unusable(info: EmbedInfo): string | undefined {
  const theirs = parseProtocolVersion(info.protocolVersion)?.major;
  if (theirs !== parseProtocolVersion(PROTOCOL_VERSION)?.major) {
    return `The Engram CLI speaks protocol ${info.protocolVersion}, this plugin ${PROTOCOL_VERSION}: update the one that is older.`;
  }
  if (!info.available) return `The embedding server cannot embed: ${info.reason ?? 'it gave no reason'}.`;
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
        (info) => ({ info }),
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
      const result = await this.running().call('embed', { texts: slice }, this.opts.requestTimeoutMs ?? 120_000);
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
      (e) => {
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
