// The real-client tier: the real Claude Code and Codex CLIs from npm (pinned), driven offline against fake model
// servers on 127.0.0.1 that record every request body, so a test asserts on what actually reached the model.
//
// Use:
//   const claude = realCli('claude');               // { bin, binDir } or { skip: reason }
//   describe.skipIf('skip' in claude)(`real Claude Code ${REAL_CLIS.claude.version}${'skip' in claude ? `: ${claude.skip}` : ''}`, …)
//   const server = await startFakeAnthropic((req) => (isMainRequest(req) ? { text: 'done' } : { text: 'ok' }));
//   const r = await runClaude({ bin: claude.bin, home, cwd, prompt: 'hi', server });
//   allText(server.mainRequests().at(-1)!.body)      // what the model saw: system, messages, tool results
//
// The CLIs are installed once per machine into a cache (`~/.cache/engram-test-clis/<pkg>@<version>`, or
// $ENGRAM_TEST_CLI_CACHE) by the `real` project's global setup (tests/real/global-setup.ts); when the registry is
// unreachable the tests skip with the reason. docs/ARCHITECTURE.md "What the agents do" has what these tests pin.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { RUN_VAR, SCOPE_VAR } from './leftovers.js';

export const REAL_CLIS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  // The oldest Claude Code the hooks format supports (docs/install.md; doctor checks it): the plugin tests run it too.
  claudeOldest: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
} as const;
export type RealCliName = keyof typeof REAL_CLIS;

export function cliCacheDir(): string {
  return process.env.ENGRAM_TEST_CLI_CACHE ?? path.join(os.homedir(), '.cache', 'engram-test-clis');
}

export function cliInstallDir(name: RealCliName): string {
  const c = REAL_CLIS[name];
  return path.join(cliCacheDir(), `${c.pkg.replace('/', '+')}@${c.version}`);
}

/** Where the global setup writes why an install failed (read back as the skip reason). */
export function cliFailureFile(name: RealCliName): string {
  return path.join(cliInstallDir(name), 'install-failed.txt');
}

/** Written into an install folder once its CLI answered `--version`; a folder without it is installed again. */
export const VERIFIED = 'engram-verified';

export type RealCli = { bin: string; binDir: string } | { skip: string };

/** Locates an installed pinned CLI, or says why it is not there. */
export function realCli(name: RealCliName): RealCli {
  const binDir = path.join(cliInstallDir(name), 'node_modules', '.bin');
  const bin = path.join(binDir, REAL_CLIS[name].bin);
  if (fs.existsSync(bin) && fs.existsSync(path.join(cliInstallDir(name), VERIFIED))) return { bin, binDir };
  const failure = fs.existsSync(cliFailureFile(name)) ? fs.readFileSync(cliFailureFile(name), 'utf8').trim() : 'not installed';
  return { skip: `${REAL_CLIS[name].pkg}@${REAL_CLIS[name].version} unavailable (${failure.split('\n')[0]})` };
}

/** A skip-aware suite title: `real Claude Code 2.1.330` or `real Claude Code 2.1.330: <why skipped>`. */
export function realSuiteTitle(name: RealCliName, what: string): string {
  const cli = realCli(name);
  return `${what} (real ${REAL_CLIS[name].pkg}@${REAL_CLIS[name].version})${'skip' in cli ? `: skipped, ${cli.skip}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Fake model servers

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined for a body that is not JSON, e.g. HEAD). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  raw: string;
}

/** One scripted answer. */
/** Tokens a reply reports (the backend's cost line reads them); the fake's default is 100 in, 20 out. */
type Usage = { usage?: { input_tokens: number; output_tokens: number } };

export type Reply =
  | ({ text: string } & Usage)
  | ({ toolUse: { name: string; input: unknown; id?: string }; text?: string } & Usage)
  | { status: number; body?: unknown }
  | { raw: string; contentType?: string }
  | { hang: true };

export type Script = (req: RecordedRequest, n: number) => Reply | Promise<Reply>;

export interface FakeServer {
  url: string;
  port: number;
  /** Every request, in arrival order (HEAD probes included). */
  requests: RecordedRequest[];
  /** The model-call requests (POST /v1/messages or /v1/responses). */
  modelRequests(): RecordedRequest[];
  /** The agent-loop requests: model calls that offer tools (not title/summary side calls). */
  mainRequests(): RecordedRequest[];
  setScript(script: Script | Reply[]): void;
  close(): Promise<void>;
}

function toScript(s: Script | Reply[] | undefined, fallback: Reply): Script {
  if (!s) return () => fallback;
  if (typeof s === 'function') return s;
  const queue = [...s];
  return () => queue.shift() ?? fallback;
}

async function startServer(
  isModelCall: (req: RecordedRequest) => boolean,
  answer: (req: RecordedRequest, reply: Reply, res: http.ServerResponse) => void,
  script?: Script | Reply[],
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let current = toScript(script, { text: 'ok' });
  let modelCalls = 0;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw };
      requests.push(rec);
      if (!isModelCall(rec)) {
        if (/count_tokens/.test(rec.url)) return json(res, 200, { input_tokens: 100 });
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      const n = modelCalls++;
      Promise.resolve(current(rec, n)).then(
        (reply) => {
          if ('hang' in reply) {
            hanging.add(res);
            res.on('close', () => hanging.delete(res));
            return;
          }
          if ('status' in reply) return json(res, reply.status, reply.body ?? { type: 'error', error: { type: 'api_error', message: 'scripted failure' } });
          if ('raw' in reply) {
            res.writeHead(200, { 'content-type': reply.contentType ?? 'text/plain' });
            res.end(reply.raw);
            return;
          }
          answer(rec, reply, res);
        },
        (err: unknown) => json(res, 500, { error: String(err) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const modelRequests = () => requests.filter(isModelCall);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelRequests,
    mainRequests: () => modelRequests().filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0),
    setScript(s) {
      current = toScript(s, { text: 'ok' });
    },
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

let idCounter = 0;

/** Anthropic Messages API (`POST /v1/messages`, streaming SSE or plain JSON), as Claude Code and Engram's `anthropic` backend call it. */
export function startFakeAnthropic(script?: Script | Reply[]): Promise<FakeServer> {
  return startServer(
    (r) => r.method === 'POST' && /^\/v1\/messages(\?|$)/.test(r.url),
    (req, reply, res) => {
      const model = String(req.body?.model ?? 'claude-test');
      const id = `msg_fake_${++idCounter}`;
      const content: { type: string; [k: string]: unknown }[] = [];
      if ('text' in reply && reply.text !== undefined) content.push({ type: 'text', text: reply.text });
      if ('toolUse' in reply) content.push({ type: 'tool_use', id: reply.toolUse.id ?? `toolu_fake_${++idCounter}`, name: reply.toolUse.name, input: reply.toolUse.input });
      const stopReason = 'toolUse' in reply ? 'tool_use' : 'end_turn';
      const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...('usage' in reply ? reply.usage : {}) };
      if (!req.body?.stream) {
        return json(res, 200, { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage });
      }
      const events: { event: string; data: unknown }[] = [
        { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } } },
      ];
      content.forEach((block, index) => {
        if (block.type === 'text') {
          events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
          events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } } });
        } else {
          events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } } });
          events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } } });
        }
        events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
      });
      events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } });
      events.push({ event: 'message_stop', data: { type: 'message_stop' } });
      sse(res, events);
    },
    script,
  );
}

/** OpenAI Responses API (`POST /v1/responses`, SSE), as Codex calls it with `wire_api = "responses"`. */
export function startFakeResponses(script?: Script | Reply[]): Promise<FakeServer> {
  return startServer(
    (r) => r.method === 'POST' && /^\/v1\/responses(\?|$)/.test(r.url),
    (req, reply, res) => {
      const id = `resp_fake_${++idCounter}`;
      const model = String(req.body?.model ?? 'gpt-test');
      const output: unknown[] = [];
      const events: { event: string; data: unknown }[] = [];
      events.push({ event: 'response.created', data: { type: 'response.created', response: { id, object: 'response', model, status: 'in_progress', output: [] } } });
      let index = 0;
      if ('text' in reply && reply.text !== undefined) {
        const item = { id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
        events.push({ event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } } });
        events.push({ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', output_index: index, content_index: 0, item_id: item.id, delta: reply.text } });
        events.push({ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: index, item } });
        output.push(item);
        index++;
      }
      if ('toolUse' in reply) {
        const callId = reply.toolUse.id ?? `call_fake_${++idCounter}`;
        const item = { id: `fc_${callId}`, type: 'function_call', status: 'completed', call_id: callId, name: reply.toolUse.name, arguments: JSON.stringify(reply.toolUse.input) };
        events.push({ event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: index, item } });
        events.push({ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: index, item } });
        output.push(item);
      }
      events.push({
        event: 'response.completed',
        data: { type: 'response.completed', response: { id, object: 'response', model, status: 'completed', output, usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } },
      });
      sse(res, events);
    },
    script,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Reading what reached the model

/** Every piece of text in a Messages or Responses request body: system prompt, messages, tool results, tool specs' names. */
export function allText(body: any): string { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'tools' && k !== 'input_schema') walk(x);
  };
  walk(body?.system);
  walk(body?.messages);
  walk(body?.input);
  walk(body?.instructions);
  return out.join('\n');
}

/** The text of every tool result in a Messages request (Claude Code) or function_call_output in a Responses request (Codex). */
export function toolResults(body: any): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out: string[] = [];
  const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => (typeof b === 'string' ? b : typeof b?.text === 'string' ? b.text : JSON.stringify(b))).join('\n') : JSON.stringify(c));
  for (const m of body?.messages ?? []) for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'tool_result') out.push(text(b.content));
  for (const item of Array.isArray(body?.input) ? body.input : []) if (item?.type === 'function_call_output') out.push(text(item.output));
  return out;
}

/** The names of the tools offered to the model. */
export function toolNames(body: any): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (body?.tools ?? []).map((t: { name?: string; type?: string }) => t.name ?? t.type ?? '');
}

// ---------------------------------------------------------------------------------------------------------------
// Running the CLIs

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is (claude -p --output-format json). */
  json?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A clean environment for a real CLI: none of the caller's Claude Code session variables, a private HOME, and a
 * private temp folder in it (the CLIs keep sockets and probes there, which go with the HOME). The test run's markers
 * stay, so what the CLI starts is found and stopped after the test (tests/helpers/leftovers.ts).
 */
export function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k !== RUN_VAR && k !== SCOPE_VAR && /^(CLAUDE|ANTHROPIC_|OPENAI_|CODEX_|ENGRAM_|AI_AGENT$|TRACEPARENT$|XDG_)/.test(k)) continue;
    env[k] = v;
  }
  const tmp = path.join(home, '.tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return { ...env, HOME: home, USERPROFILE: home, TMPDIR: tmp, ...extra };
}

export function runProcess(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdout);
      } catch {
        parsed = undefined;
      }
      resolve({ code, signal, stdout, stderr, json: parsed });
    });
    child.stdin.on('error', () => undefined); // a CLI that never reads stdin closes it early (EPIPE)
    child.stdin.end(opts.input ?? '');
  });
}

export interface ClaudeRun {
  bin: string;
  home: string;
  cwd: string;
  prompt: string;
  server: FakeServer;
  /** Extra arguments after `-p <prompt> --output-format json`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The environment for a real `claude` against the fake server (docs/ARCHITECTURE.md "What the agents do"). */
export function claudeEnv(home: string, server: FakeServer, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cleanEnv(home, {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...extra,
  });
}

/** `claude -p <prompt> --output-format json` in a private HOME against the fake server. */
export function runClaude(o: ClaudeRun): Promise<RunResult> {
  return runProcess(o.bin, ['-p', o.prompt, '--output-format', 'json', ...(o.args ?? [])], {
    cwd: o.cwd,
    env: claudeEnv(o.home, o.server, o.env),
    timeoutMs: o.timeoutMs,
  });
}

/** Writes Codex's config for the fake Responses server (and any extra TOML, e.g. an `[mcp_servers.engram]` block). */
export function writeCodexConfig(home: string, server: FakeServer, extraToml = ''): void {
  const dir = path.join(home, '.codex');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.toml');
  const base = [
    'model = "gpt-test"',
    'model_provider = "fake"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${server.url}/v1"`,
    'wire_api = "responses"',
    'env_key = "FAKE_OPENAI_KEY"',
    '',
  ].join('\n');
  fs.writeFileSync(file, `${base}\n${extraToml}`);
}

export interface CodexRun {
  bin: string;
  home: string;
  cwd: string;
  prompt: string;
  server: FakeServer;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** `codex exec <prompt>` in a private HOME against the fake Responses server (config from writeCodexConfig). */
export function runCodex(o: CodexRun): Promise<RunResult> {
  return runProcess(o.bin, ['exec', '--skip-git-repo-check', ...(o.args ?? []), o.prompt], {
    cwd: o.cwd,
    env: cleanEnv(o.home, { FAKE_OPENAI_KEY: 'sk-test-dummy', ...o.env }),
    timeoutMs: o.timeoutMs,
  });
}

