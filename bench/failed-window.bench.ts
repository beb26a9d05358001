// What a window whose API fails costs: wall time and requests of one `engram extract` run (the same code path, in
// process) against a local Anthropic / OpenAI wire-format server that answers HTTP 500 forever, 429 with a long
// Retry-After, or never answers. Before this change one HTTP 500 cost 742 s and 44 API requests (the claude CLI's own
// retries under Engram's four attempts) and the window was then used up by the rules stand-in; a hung API cost 1,207 s.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../sidecar/hosting/config-file.js';

register('./md-text-loader.mjs', import.meta.url);

const fixture = path.resolve(import.meta.dirname, '..', 'tests', 'fixtures', 'extract', 'markers-b.jsonl');
// The corpus sits next to the checkout (../shared), or next to the main checkout for a worktree under wt/.
const real = [path.join('..', 'shared'), path.join('..', '..', 'shared')]
  .map((d) => path.resolve(import.meta.dirname, '..', d, 'corpus', 'transcripts', 'marot-spotter', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'))
  .find((f) => fs.existsSync(f));

type Mode = '500' | '429-long' | 'hang';

export async function run(): Promise<void> {
  const { extractTranscript } = await import('../sidecar/hosting/extract-runner.js');
  const { hostFacts } = await import('../sidecar/hosting/facts.js');
  const { vaultKey } = await import('../src/core/state.js');
  let mode: Mode = '500';
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // The claude CLI sends `HEAD /` first: only the model requests count.
      if (req.method !== 'POST') return void res.writeHead(404).end();
      requests++;
      if (mode === 'hang') return;
      if (mode === '429-long') return void res.writeHead(429, { 'retry-after': '3600', 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"api_error","message":"Internal server error"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-failed-'));
  try {
    const cases: [string, Mode, 'anthropic' | 'openai' | 'claude', string, Record<string, string>][] = [
      ['HTTP 500 forever, anthropic, 1-window session', '500', 'anthropic', fixture, {}],
      ['HTTP 500 forever, openai, 1-window session', '500', 'openai', fixture, {}],
      ['429 with Retry-After: 3600, anthropic', '429-long', 'anthropic', fixture, {}],
      ['never answers, anthropic, extract.timeout_ms=10000', 'hang', 'anthropic', fixture, { ENGRAM_EXTRACT_TIMEOUT_MS: '10000' }],
    ];
    if (real) cases.push(['HTTP 500 forever, anthropic, real 3 MB session cut in 2,000-token windows', '500', 'anthropic', real, { window: '2000' }]);
    // The real Claude Code CLI as the claude backend (installed by tests/real/global-setup.ts), pointed at the server.
    const claudeBin = path.join(os.homedir(), '.cache', 'engram-test-clis', '@anthropic-ai+claude-code@2.1.330', 'node_modules', '.bin', 'claude');
    if (fs.existsSync(claudeBin)) {
      // claude.base_url is the one way to point the nested CLI elsewhere (a session's ANTHROPIC_BASE_URL is stripped).
      const cli = { ENGRAM_CLAUDE_COMMAND: claudeBin, ENGRAM_CLAUDE_BASE_URL: url, DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1' };
      // The CLI would retry about 10 times on its own; Engram runs it with CLAUDE_CODE_MAX_RETRIES=0 (docs/ARCHITECTURE.md "What the agents do").
      cases.push(['HTTP 500 forever, claude (real CLI 2.1.330 as Engram runs it)', '500', 'claude', fixture, cli]);
    }
    let n = 0;
    for (const [label, m, backend, transcript, extra] of cases) {
      mode = m;
      requests = 0;
      const home = path.join(tmp, `h${++n}`);
      const vault = path.join(tmp, `v${n}`);
      fs.mkdirSync(vault, { recursive: true });
      const { window, ...vars } = extra;
      const env = { ...process.env, ENGRAM_HOME: home, HOME: home, ENGRAM_FAULT: '', ANTHROPIC_API_KEY: 'sk-bench', OPENAI_API_KEY: 'sk-bench', ENGRAM_ANTHROPIC_URL: url, ENGRAM_OPENAI_URL: `${url}/v1`, ...vars };
      const t0 = performance.now();
      const r = await extractTranscript({ facts: hostFacts(env), config: loadConfig(hostFacts(env)).config, vaultRoot: vault, vaultKey: vaultKey(vault, process.platform), backend, mode: 'foreground', source: 'manual', transcriptPath: transcript, ...(window ? { window: { budgetTokens: Number(window) } } : {}) });
      const secs = (performance.now() - t0) / 1000;
      const filed = fs.readdirSync(vault, { recursive: true }).filter((f) => String(f).endsWith('.md')).length;
      console.log(`  ${label}: ${secs.toFixed(1)} s, ${requests} requests; ${r.windows.notDone} of ${r.windows.total} windows left pending (${r.failed[0]?.failure ?? 'none'}), ${filed} notes filed`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
