// Which agent wrote a transcript, told by its file's name alone (no read): Codex names its rollouts
// `rollout-<time>-<uuid>.jsonl`, Claude Code its sessions `<uuid>.jsonl`. The hook tells the host which client runs it
// from the `transcript_path` of its payload (both agents send one), so the activity record names the client of each
// injection as it does of each capture. An MCP client names itself in its `initialize` request (`clientInfo.name`).

/** The clients that run Engram's hooks. */
export const HOOK_CLIENTS = ['claude-code', 'codex'] as const;
export type HookClient = (typeof HOOK_CLIENTS)[number];

/** True for one of the client ids the record keeps. */
export function isHookClient(v: unknown): v is HookClient {
  return (HOOK_CLIENTS as readonly unknown[]).includes(v);
}

/** True for a Codex rollout's file name. */
export function isRolloutName(name: string): boolean {
  return /^rollout-.*\.jsonl$/.test(name);
}

const UUID_JSONL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** The client whose transcript this path names, or undefined when its name says neither. */
export function clientOfTranscript(path: string | undefined): HookClient | undefined {
  if (!path) return undefined;
  const name = path.replace(/\\/g, '/').split('/').pop() ?? '';
  if (isRolloutName(name)) return 'codex';
  if (UUID_JSONL.test(name)) return 'claude-code';
  return undefined;
}

/**
 * The client an MCP `initialize` names (`clientInfo.name`): Claude Code sends `claude-code`, Codex `codex-mcp-client`;
 * undefined for any other client.
 */
export function clientOfMcp(name: string | undefined): HookClient | undefined {
  const n = (name ?? '').trim().toLowerCase();
  if (/^claude[ -]?code\b/.test(n)) return 'claude-code';
  if (/^codex\b/.test(n)) return 'codex';
  return undefined;
}
