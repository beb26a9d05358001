// The `claude` CLI as a backend (the default: it uses the user's subscription, no API key).
// Runs as docs/ARCHITECTURE.md "What the agents do" says: empty temporary cwd, no MCP servers, no tools, ENGRAM_NESTED=1, no
// transcript (--no-session-persistence) and Engram's marker opening the user message, no thinking, no retries of its
// own, Engram's output cap, and an environment Engram defines (nestedEnv): no session variables, no inherited
// endpoint. Failures are read from the CLI's result object (docs/ARCHITECTURE.md "What the agents do").
import type { SpawnPort } from '../../ports.js';
import { ENGRAM_PROMPT_MARKER, startsWithPromptMarker } from '../../transcript/fence.js';
import { BackendError, failureForStatus, type BackendFailure } from './backend-error.js';
import { approxTokens } from './pricing.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
import type { CompletionRequest, CompletionResult, LlmBackend } from './types.js';

/**
 * Variables a Claude Code session sets for the processes it starts (hooks, and so a host a hook started): a nested
 * `claude` that sees them attaches to that session, hangs, or reports itself as its child. Never passed on.
 */
export const NESTED_SESSION_VARIABLES = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_STARTER_MAY_HOLD_CONNECTOR_FILE',
  'CLAUDE_CODE_REMOTE_SESSION_ID',
  'CLAUDE_CODE_IDE_PORT',
  'CLAUDE_AGENT_SDK_VERSION',
  'CLAUDE_PID',
  'CLAUDE_EFFORT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_PLUGIN_ROOT',
  'CLAUDE_PLUGIN_DATA',
  'CLAUDE_ENV_FILE',
  'MCP_CONNECTION_NONBLOCKING',
  'AI_AGENT',
  'TRACEPARENT',
  'TRACESTATE',
] as const;

/**
 * Where the nested CLI sends its requests is Engram's setting (`claude.base_url`) or the CLI's own settings
 * (`~/.claude/settings.json` `env`, `apiKeyHelper`), never a value inherited from the process that started the host:
 * a session's base URL (a local proxy, a gateway it was started with) and the bearer token that goes with it are
 * stripped. Credentials the user set up stay: ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN from the host's
 * environment, and the CLI's own login.
 */
export const SESSION_ENDPOINT_VARIABLES = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN'] as const;

/** API retries the CLI makes on its own: none, Engram's retry policy (with backoff) decides. */
export const NESTED_CLI_MAX_RETRIES = 0;
/** Output cap when a request names none (the extraction prompts ask for 4096 or less). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

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
  /** `claude.base_url`: the Anthropic API endpoint the nested CLI uses (unset: the CLI's own default or settings). */
  baseUrl?: string;
  /** Creates a fresh empty directory for each call (the host owns the file system). */
  makeTempDir: () => Promise<TempDir>;
  /** Whether its calls cost money per token: the backend registry's word (on ANTHROPIC_API_KEY, claudeBillsApiKey). */
  paid: boolean;
  timeoutMs?: number;
  retry?: RetryPolicy;
  now?: () => number;
}

/** The result object `claude -p --output-format json` prints (on success and on failure alike). */
export interface ClaudeResultJson {
  type?: string;
  subtype?: string;
  is_error?: boolean;
  result?: string;
  /** The HTTP status of the failed API call, null when the call never got an answer (not logged in, no network). */
  api_error_status?: number | null;
  /** A failure without a status, e.g. `connection_failed`. */
  api_error?: string | null;
  duration_ms?: number;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  modelUsage?: Record<string, unknown>;
}

/**
 * The child's environment, as Engram defines it: the host's environment without any session's variables or
 * endpoint, plus the limits of a nested call (no thinking, no retries of its own, Engram's output cap).
 * `undefined` removes a variable.
 */
export function nestedEnv(
  base: Record<string, string | undefined>,
  opts: { baseUrl?: string; maxOutputTokens?: number } = {},
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const key of NESTED_SESSION_VARIABLES) env[key] = undefined;
  for (const key of SESSION_ENDPOINT_VARIABLES) env[key] = undefined;
  if (opts.baseUrl) env.ANTHROPIC_BASE_URL = opts.baseUrl;
  env.ENGRAM_NESTED = '1';
  // 2.1.197 thinks with a 31,999-token budget unless MAX_THINKING_TOKENS=0; 2.1.330's adaptive thinking ignores
  // that and needs CLAUDE_CODE_DISABLE_THINKING (docs/ARCHITECTURE.md "What the agents do").
  env.MAX_THINKING_TOKENS = '0';
  env.CLAUDE_CODE_DISABLE_THINKING = '1';
  env.CLAUDE_CODE_MAX_RETRIES = String(NESTED_CLI_MAX_RETRIES);
  env.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  // A background one-shot call: no auto-update check, telemetry or error reports of its own.
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
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
    // No transcript under ~/.claude/projects: Engram's own call must never be listed as a session to extract.
    '--no-session-persistence',
    // None of the user's hooks (Engram's own included: 41 hook processes for 11 calls) and no plugin hooks, while the
    // user's other settings (an endpoint, an apiKeyHelper) still apply; `--bare` would also drop OAuth logins and
    // `--setting-sources` the settings. Both pinned versions (2.1.197, 2.1.330) know `disableAllHooks`.
    '--settings', '{"disableAllHooks":true}',
    '--system-prompt', system,
  ];
}

/**
 * The prompt as the CLI reads it from stdin: it starts with Engram's marker, because the user message is what a
 * transcript keeps (the system prompt never is), so a transcript that still gets written is known as Engram's own.
 */
export function nestedPrompt(user: string): string {
  return startsWithPromptMarker(user) ? user : `${ENGRAM_PROMPT_MARKER}\n${user}`;
}

const AUTH_RESULT_RE = /not logged in|\/login\b|invalid api key|oauth token|authenticat|unauthori[sz]ed/i;

/**
 * Classifies a failed run from the CLI's result object: the API status when it has one, a connection failure,
 * a login problem, else a request error. Never from numbers elsewhere in the output (its `duration_ms` is not a status).
 */
export function classifyResult(r: ClaudeResultJson): { failure: BackendFailure; status?: number } {
  const status = typeof r.api_error_status === 'number' ? r.api_error_status : undefined;
  if (status !== undefined) return { failure: failureForStatus(status), status };
  if (typeof r.api_error === 'string' && r.api_error) return { failure: 'network' };
  if (AUTH_RESULT_RE.test(r.result ?? '')) return { failure: 'auth' };
  return { failure: 'request' };
}

export const AUTH_HINT = 'run `claude` once and log in with /login (or set ANTHROPIC_API_KEY where the host starts), or extract without an LLM: `engram configure backend rules`';
export const NOT_INSTALLED_HINT = 'install Claude Code (npm install -g @anthropic-ai/claude-code), or set its path with `engram configure claude.command /path/to/claude`, or extract without an LLM: `engram configure backend rules`';

function parseResult(stdout: string): ClaudeResultJson | undefined {
  try {
    const parsed = JSON.parse(stdout) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** The nested CLI bills an API account (per token) when the host's environment gives it ANTHROPIC_API_KEY. */
export function claudeBillsApiKey(env: Record<string, string | undefined>): boolean {
  return Boolean(env.ANTHROPIC_API_KEY?.trim());
}

export class ClaudeBackend implements LlmBackend {
  readonly name = 'claude' as const;
  /** Billed per token: the CLI runs on the user's ANTHROPIC_API_KEY rather than their subscription login. */
  readonly paid: boolean;
  readonly model: string;
  private readonly command: string;

  constructor(private readonly opts: ClaudeOptions) {
    this.paid = opts.paid;
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
            env: nestedEnv(this.opts.env, { baseUrl: this.opts.baseUrl, maxOutputTokens: req.maxTokens }),
            stdin: nestedPrompt(req.user),
            timeoutMs,
          });
        } catch (e) {
          const code = (e as { code?: string }).code;
          // Node reports ENOENT; the Node SpawnPort turns it into a not-found EngramError.
          if (code === 'ENOENT' || code === 'not-found') {
            throw new BackendError(this.name, 'not-installed', `cannot run ${this.command}: not found`, NOT_INSTALLED_HINT);
          }
          throw new BackendError(this.name, 'request', `cannot run ${this.command}: ${(e as Error).message}`);
        }
        if (result.timedOut) throw new BackendError(this.name, 'timeout', `no reply within ${timeoutMs} ms (killed)`);
        const parsed = parseResult(result.stdout);
        if (parsed?.is_error || (result.exitCode !== 0 && parsed && typeof parsed.result === 'string')) throw this.failed(parsed, result.exitCode ?? result.signal);
        if (result.exitCode !== 0) {
          // No result object: the CLI could not start the call (an unknown flag, a crash). Not worth retrying.
          const firstLine = (result.stderr.trim() || result.stdout.trim()).split('\n')[0]?.slice(0, 200) ?? '';
          throw new BackendError(this.name, 'request', `exited with ${result.exitCode ?? result.signal ?? 'unknown'}${firstLine ? `: ${firstLine}` : ''}`);
        }
        return this.parse(parsed, result.stdout, req);
      } finally {
        await dir.remove().catch(() => undefined);
      }
    }, this.opts.retry ?? DEFAULT_RETRY);
    return { ...value, durationMs: now() - started, attempts };
  }

  private failed(r: ClaudeResultJson, exit: number | string | null): BackendError {
    const { failure, status } = classifyResult(r);
    const text = (r.result ?? '').trim().split('\n')[0]?.slice(0, 200) || 'no message';
    const hint = failure === 'auth' ? AUTH_HINT : undefined;
    return new BackendError(this.name, failure, `reported an error${exit !== null && exit !== 0 ? ` (exit ${exit})` : ''}: ${text}`, hint, undefined, status);
  }

  private parse(parsed: ClaudeResultJson | undefined, stdout: string, req: CompletionRequest): Omit<CompletionResult, 'durationMs'> {
    if (!parsed || typeof parsed.result !== 'string') {
      // Not the result object (an older CLI or a text reply): take the text, estimate tokens.
      return {
        text: stdout,
        model: this.model,
        usage: { inputTokens: approxTokens(req.system + req.user), outputTokens: approxTokens(stdout) },
        costUsd: 0,
      };
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
