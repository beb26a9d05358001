// Whether the configured extraction backend can run at all, said before any work is queued (`engram setup`,
// `engram backfill`): for `claude`, the CLI on PATH and logged in; for the APIs, a key. With the choices to fix it.
import { spawnSync } from 'node:child_process';
import type { BackendName, EffectiveConfig } from '../../src/core/config.js';
import { isLocalUrl } from '../../src/core/extract/usage.js';
import { apiKey, findClaude, isExecutable } from './backends.js';

export interface BackendCheck {
  backend: BackendName;
  ok: boolean;
  /** What was found (or what is missing), one line. */
  detail: string;
  /** The ways out, one line each, when not ok. */
  choices: string[];
}

const RULES_CHOICE = '`engram configure backend rules`: offline, no LLM (files only explicit #decision / remember: markers and plain corrections)';

function choicesFor(backend: BackendName): string[] {
  const claude = 'install Claude Code and log in: `npm install -g @anthropic-ai/claude-code`, then run `claude` and /login (or set `engram configure claude.command <path>`)';
  const anthropic = 'an API key: `export ANTHROPIC_API_KEY=…` and `engram configure backend anthropic` (paid per token; set `engram configure budget.tokens_per_day <n>` for background runs)';
  if (backend === 'claude') return [claude, RULES_CHOICE, anthropic];
  if (backend === 'anthropic') return ['an API key: `export ANTHROPIC_API_KEY=…` (or store it under service "engram" in the OS secret store)', RULES_CHOICE, claude];
  if (backend === 'openai') return ['an API key: `export OPENAI_API_KEY=…`, or point `openai.url` at a local OpenAI-compatible server', RULES_CHOICE, claude];
  return [RULES_CHOICE];
}

/** Checks the configured backend without spending a token (`claude auth status` for the CLI). */
export function checkBackend(config: EffectiveConfig, env: NodeJS.ProcessEnv, backend: BackendName = config.get('backend')): BackendCheck {
  const fail = (detail: string): BackendCheck => ({ backend, ok: false, detail, choices: choicesFor(backend) });
  switch (backend) {
    case 'rules':
      return { backend, ok: true, detail: 'rules: offline, no LLM', choices: [] };
    case 'ollama':
      return { backend, ok: true, detail: `ollama at ${config.get('ollama.url')} (model ${config.get('ollama.model')})`, choices: [] };
    case 'anthropic':
      return apiKey('ANTHROPIC_API_KEY', env) ? { backend, ok: true, detail: 'anthropic: ANTHROPIC_API_KEY is set', choices: [] } : fail('the anthropic backend needs ANTHROPIC_API_KEY, and it is not set');
    case 'openai': {
      const url = config.get('openai.url');
      return isLocalUrl(url) || apiKey('OPENAI_API_KEY', env) ? { backend, ok: true, detail: `openai at ${url}`, choices: [] } : fail(`the openai backend at ${url} needs OPENAI_API_KEY, and it is not set`);
    }
    case 'claude': {
      const configured = config.get('claude.command');
      const cli = findClaude(configured, env);
      if (!isExecutable(cli)) return fail(`the claude backend runs the Claude Code CLI, and \`${configured}\` is not on PATH (nor in ~/.claude/local or ~/.local/bin)`);
      const r = spawnSync(cli, ['auth', 'status'], { env, encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'] });
      let status: { loggedIn?: boolean; authMethod?: string } | undefined;
      try {
        status = JSON.parse(r.stdout) as typeof status;
      } catch {
        // An older CLI without `auth status`: found, login unknown; its first call says.
      }
      if (status?.loggedIn === false) return fail(`the Claude Code CLI (${cli}) is not logged in`);
      return { backend, ok: true, detail: `claude: ${cli}${status?.authMethod ? ` (logged in, ${status.authMethod})` : ''}`, choices: [] };
    }
    default:
      return fail(`unknown backend ${String(backend)}`);
  }
}

/** The check as lines for a person: what is wrong, then the numbered choices. */
export function describeBackendProblem(check: BackendCheck): string[] {
  return [`The ${check.backend} backend cannot run: ${check.detail}.`, 'Choose one:', ...check.choices.map((c, i) => `  ${i + 1}. ${c}`)];
}
