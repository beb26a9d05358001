// The `claude` CLI as a backend (the default: it uses the user's subscription, no API key).
// Runs as DESIGN "Nested LLM calls" says: empty temporary cwd, no MCP servers, no tools, ENGRAM_NESTED=1,
// and without the variables that make a nested `claude` hang or attach to the parent session.
import type { SpawnPort } from '../../ports.js';
import { BackendError } from './backend-error.js';
import { approxTokens } from './pricing.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

/** Variables a parent Claude Code session sets for its children; a nested `claude` that sees them hangs or misbehaves. */
export const NESTED_SESSION_VARIABLES = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_IDE_PORT',
  'CLAUDE_AGENT_SDK_VERSION',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_PLUGIN_ROOT',
  'CLAUDE_PLUGIN_DATA',
  'CLAUDE_ENV_FILE',
  'MCP_CONNECTION_NONBLOCKING',
] as const;

export interface TempDir {
  path: string;
  remove(): Promise<void>;
}

export interface ClaudeOptions {
  spawn: SpawnPort;
  /** Path of the `claude` executable (auto-detected by the host, or configured). */
  command?: string;
  model?: string;
  /** The host's environment, as a base for the child's. */
  env: Record<string, string | undefined>;
  /** Creates a fresh empty directory for each call (the host owns the file system). */
  makeTempDir: () => Promise<TempDir>;
  timeoutMs?: number;
  retry?: RetryPolicy;
  now?: () => number;
}

interface ResultJson {
  type?: string;
  subtype?: string;
  is_error?: boolean;
  result?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  modelUsage?: Record<string, unknown>;
}

export function nestedEnv(base: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const key of NESTED_SESSION_VARIABLES) env[key] = undefined;
  env.ENGRAM_NESTED = '1';
  return env;
}

export function claudeArgs(model: string, system: string): string[] {
  return [
    '-p',
    '--model', model,
    '--max-turns', '1',
    '--output-format', 'json',
    '--tools', '',
    '--strict-mcp-config',
    '--mcp-config', '{"mcpServers":{}}',
    '--system-prompt', system,
  ];
}

function classify(stderr: string, stdout: string): 'rate-limit' | 'server' | 'auth' | 'request' {
  const text = `${stderr}\n${stdout}`.toLowerCase();
  if (/\b429\b|rate.?limit|overloaded|\b529\b|usage limit/.test(text)) return 'rate-limit';
  if (/\b5\d\d\b|internal server error|api error|econnreset|network/.test(text)) return 'server';
  if (/not logged in|invalid api key|please run \/login|authentication|unauthori[sz]ed/.test(text)) return 'auth';
  return 'request';
}

export class ClaudeBackend implements LlmBackend {
  readonly name = 'claude' as const;
  readonly paid = false;
  readonly model: string;
  private readonly command: string;

  constructor(private readonly opts: ClaudeOptions) {
    this.model = opts.model ?? 'haiku';
    this.command = opts.command ?? 'claude';
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const now = this.opts.now ?? Date.now;
    const started = now();
    const timeoutMs = req.timeoutMs ?? this.opts.timeoutMs ?? 300_000;
    const { value, attempts } = await withRetry(async () => {
      const dir = await this.opts.makeTempDir();
      try {
        let result;
        try {
          result = await this.opts.spawn.run({
            command: this.command,
            args: claudeArgs(this.model, req.system),
            cwd: dir.path,
            env: nestedEnv(this.opts.env),
            stdin: req.user,
            timeoutMs,
          });
        } catch (e) {
          const code = (e as { code?: string }).code;
          // Node reports ENOENT; the Node SpawnPort turns it into a not-found EngramError.
          if (code === 'ENOENT' || code === 'not-found') {
            throw new BackendError(this.name, 'not-installed', `cannot run ${this.command}: not found`, 'install Claude Code, set claude_path with `engram configure claude_path …`, or use --backend rules');
          }
          throw new BackendError(this.name, 'request', `cannot run ${this.command}: ${(e as Error).message}`);
        }
        if (result.timedOut) throw new BackendError(this.name, 'timeout', `no reply within ${timeoutMs} ms (killed)`);
        if (result.exitCode !== 0) {
          const failure = classify(result.stderr, result.stdout);
          const firstLine = (result.stderr.trim() || result.stdout.trim()).split('\n')[0]?.slice(0, 200) ?? '';
          throw new BackendError(
            this.name,
            failure,
            `exited with ${result.exitCode ?? result.signal ?? 'unknown'}${firstLine ? `: ${firstLine}` : ''}`,
            failure === 'auth' ? 'run `claude` once and log in, or choose another backend' : undefined,
          );
        }
        return this.parse(result.stdout, req);
      } finally {
        await dir.remove().catch(() => undefined);
      }
    }, this.opts.retry ?? DEFAULT_RETRY);
    return { ...value, durationMs: now() - started, attempts };
  }

  private parse(stdout: string, req: CompletionRequest): Omit<CompletionResult, 'durationMs'> {
    let parsed: ResultJson | undefined;
    try {
      parsed = JSON.parse(stdout) as ResultJson;
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || typeof parsed.result !== 'string') {
      // Not the result object (an older CLI or a text reply): take the text, estimate tokens.
      return {
        text: stdout,
        model: this.model,
        usage: { inputTokens: approxTokens(req.system + req.user), outputTokens: approxTokens(stdout) },
        costUsd: 0,
      };
    }
    if (parsed.is_error) {
      const failure = classify(parsed.result, '');
      throw new BackendError(this.name, failure, `reported an error: ${parsed.result.slice(0, 200)}`);
    }
    const u = parsed.usage ?? {};
    const model = Object.keys(parsed.modelUsage ?? {})[0] ?? this.model;
    return {
      text: parsed.result,
      model,
      usage: {
        inputTokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
        outputTokens: u.output_tokens ?? 0,
      },
      // Subscription calls cost nothing extra; tokens still count against the daily budget.
      costUsd: 0,
    };
  }
}
