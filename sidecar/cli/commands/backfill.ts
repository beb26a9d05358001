// `engram backfill [--since 30d] [--yes]`: the LLM pass over existing transcripts, run by the host after confirmation.
import type { CommandDefinition } from '../types.js';
import { vaultState } from '../../hosting/paths.js';
import { parseSince } from '../../../src/core/duration.js';
import { estimateBacklog, listClaudeTranscripts } from '../../install/transcripts.js';
import { ensureHost, queueTranscripts } from '../../install/queue-backlog.js';
import { commandVault } from './serve.js';

export const command: CommandDefinition = {
  usage: 'backfill [--since 30d] [--yes]',
  description: 'Extract your existing Claude Code transcripts with the configured LLM backend (the daily budget applies). Shows the size and a token estimate, and queues them only with --yes.',
  options: {
    since: { type: 'string', valueName: '<30d|2w|date>', description: 'Only transcripts changed since then' },
    yes: { type: 'boolean', short: 'y', description: 'Queue them (without it, only the estimate is shown)' },
  },
  async run(ctx) {
    const vault = commandVault(ctx);
    // Everything when absent; otherwise core's one duration reader (its usage error names the forms it takes).
    const since = ctx.options.since === undefined ? 0 : parseSince(String(ctx.options.since), Date.now(), '--since');
    // Said before anything is counted or queued: a backend that cannot run would only leave every window pending.
    const { checkBackend, describeBackendProblem } = await import('../../hosting/backend-check.js');
    const check = checkBackend(ctx.config(), ctx.env);
    if (!check.ok) {
      for (const line of describeBackendProblem(check)) ctx.stdout(line);
      ctx.stdout('Nothing queued.');
      return 1;
    }
    const files = await listClaudeTranscripts(ctx.env, since);
    const { readTranscriptFile } = await import('../../hosting/extract-runner.js');
    const est = await estimateBacklog(files, async (f) => (await readTranscriptFile(f)).turns.reduce((n, t) => n + t.text.length, 0));
    ctx.stdout(`Backend: ${check.detail}.`);
    ctx.stdout(`${files.length} transcripts, ${(est.bytes / 1e6).toFixed(1)} MB, about ${est.tokens.toLocaleString('en-US')} input tokens for an LLM pass${est.sampled ? ' (estimated from a sample)' : ''}.`);
    if (!ctx.options.yes) {
      ctx.stdout('Nothing queued. Run again with --yes to extract them in the background.');
      return 0;
    }
    const state = vaultState(vault, ctx.env);
    queueTranscripts(state, files, 'Backfill');
    const conn = await ensureHost(state, ctx.env);
    if (conn) {
      await conn.call('spool.notify', {}, Date.now() + 5000).catch(() => undefined);
      conn.close();
    }
    ctx.stdout(`Queued ${files.length} transcripts; the host extracts them within the daily budget. Follow it with \`engram status\`.`);
    return 0;
  },
};
