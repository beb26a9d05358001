// review / restructure for MCP clients: the host runs the curation commands itself (in-process, through its own
// vault port, so it stays the one writer and its index sees the change at once) and returns their JSON, so agents see
// exactly what `engram review --json` would list or apply.
import { EngramError } from '../../src/core/errors.js';
import type { RunningHost } from './daemon.js';
import { runHostCommand } from './host-commands.js';

export async function runCurationCommand(kind: 'review' | 'restructure', host: RunningHost, env: NodeJS.ProcessEnv, apply?: string): Promise<unknown> {
  // ENGRAM_ACTOR: what the curation command writes as "who" in the vault's Engram log (an agent, through MCP).
  const r = await runHostCommand(host, env, { command: kind, args: [], options: apply ? { apply: [apply] } : {}, json: true, cwd: host.state.vault, actor: 'mcp', stream: false });
  if (r.error) throw new EngramError('refused', r.error.message, r.error.hint);
  if (r.exitCode !== 0) throw new EngramError('refused', r.stderr[0] || `${kind} failed (exit ${r.exitCode})`);
  const out = r.stdout.join('\n');
  try {
    return JSON.parse(out) as unknown;
  } catch {
    return { output: out.trim() };
  }
}
