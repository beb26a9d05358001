// One run of `engram embed-server`: the process with its stdio pipes, newline-delimited JSON-RPC requests in flight,
// and why it ended. The supervisor (embed-child.ts) decides what happens next.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import { errorMessage } from '../../core/errors.js';
import { LineDecoder, encodeFrame, parseFrame, request } from '../../core/protocol/jsonrpc.js';
import { embedResultOf, type EmbedMethod, type EmbedParams, type EmbedResults } from '../../core/protocol/embed.js';

export interface ServerCommand {
  node: string;
  /** The CLI entry (`dist/engram.mjs`). */
  cli: string;
  /** A model folder (`--model`); default: the CLI's configured or downloaded model. */
  modelDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The child's stderr, line by line as written, and the supervisor's notes (restarts, stray output). */
  log?: (line: string) => void;
}

export interface Exit {
  /** "exit code 1", "signal SIGKILL", "could not start: …", with the last stderr line when there is one. */
  reason: string;
}

/** The process and its requests; `exited` resolves once, with the reason every request in flight was failed with. */
export class ServerProcess {
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

  constructor(private readonly opts: ServerCommand) {
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
        opts.log?.(line);
      }
    });
  }

  get pid(): number | undefined {
    return this.gone ? undefined : this.proc.pid;
  }

  /** One request to the child, answered with its method's result type. */
  call<M extends EmbedMethod>(method: M, params?: EmbedParams<M>, timeoutMs?: number): Promise<EmbedResults[M]> {
    if (this.gone) return Promise.reject(new Error('The embedding child is not running.'));
    const id = this.nextId++;
    const sent = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.stdin.write(encodeFrame(request(id, method, params)));
    });
    const typed = sent.then((raw) => embedResultOf(method, raw));
    if (timeoutMs === undefined) return typed;
    const timer = setTimeout(() => this.kill(`it did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`), timeoutMs);
    return typed.finally(() => clearTimeout(timer));
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
