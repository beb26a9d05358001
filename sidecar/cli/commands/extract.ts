// `engram extract <transcript>`: extracts a Claude Code or Codex transcript into the vault, exactly once.
import path from 'node:path';
import { BACKENDS, type BackendName } from '../../../src/core/config.js';
import { EngramError } from '../../../src/core/errors.js';
import type { ExtractRun } from '../../../src/core/extract/extract.js';
import { hostFacts } from '../../host/facts.js';
import { extractTranscript } from '../../host/extract-runner.js';
import { requireVault } from '../../host/resolve.js';
import { forwardToHost } from '../../client/forward.js';
import type { CommandContext, CommandDefinition } from '../types.js';

export function backendOption(ctx: CommandContext): BackendName | undefined {
  const b = ctx.options.backend;
  if (b === undefined) return undefined;
  if (typeof b !== 'string' || !(BACKENDS as readonly string[]).includes(b)) {
    throw new EngramError('usage', `unknown backend "${String(b)}"`, `choose one of ${BACKENDS.join(', ')}`);
  }
  return b as BackendName;
}

const verb: Record<string, string> = { created: 'wrote', extended: 'extended', 'already-written': 'already in vault', 'duplicate-skipped': 'duplicate, skipped' };

export function describeRun(run: ExtractRun, label: string): string[] {
  const lines: string[] = [];
  if (run.skipped) return [`${label}: skipped (${run.skipped})`];
  const w = run.windows;
  const b = run.beats;
  const head = run.dryRun ? 'would write' : 'wrote';
  if (w.total === 0) return [`${label}: nothing new to extract (every turn is in the ledger)`];
  lines.push(
    `${label}: ${w.total} window${w.total === 1 ? '' : 's'} (${w.called} sent to ${run.backend}, ${w.replayed} replayed from the journal); ` +
      `${b.extracted} beats, ${head} ${b.created} new, ${b.extended} extended, ${b.alreadyWritten + b.duplicates} already there, ${b.rejected} rejected`,
  );
  for (const n of run.notes) lines.push(`  ${(run.dryRun && n.action === 'created' ? 'would write' : verb[n.action]).padEnd(18)} ${n.path}  (${n.type})${n.proposal ? `  possible duplicate: proposal ${n.proposal}` : ''}`);
  const tokens = run.tokens.input + run.tokens.output;
  if (tokens > 0) lines.push(`  tokens ${run.tokens.input} in / ${run.tokens.output} out${run.costUsd > 0 ? `, ~$${run.costUsd.toFixed(4)}` : ''}; LLM ${run.llmMs} ms of ${run.durationMs} ms`);
  if (run.budgetStopped) lines.push(`  stopped: ${run.budgetStopped}`);
  for (const e of run.errors) lines.push(`  error: ${e}`);
  return lines;
}

export const command: CommandDefinition = {
  usage: 'extract <transcript> [--vault <path>] [--backend <name>] [--dry-run] [--json]',
  description: 'Extract decisions, corrections and insights from an agent transcript (Claude Code JSONL or Codex rollout) into the vault. Only the part not extracted before is read; running it twice adds nothing.',
  options: {
    backend: { type: 'string', valueName: '<name>', description: `LLM backend (${BACKENDS.join(', ')}); default from config` },
    'dry-run': { type: 'boolean', description: 'Show what would be written; write nothing' },
  },
  details: 'Examples:\n  engram extract ~/.claude/projects/-home-me-app/1234.jsonl --backend rules\n  engram extract session.jsonl --dry-run --json',
  async run(ctx) {
    const file = ctx.args[0];
    if (!file) throw new EngramError('usage', 'which transcript? give its path');
    // A live host is the vault's one writer: the extraction runs there, queued with the hooks' jobs. A dry run writes
    // nothing, so it runs here.
    if (!ctx.options['dry-run']) {
      const forwarded = await forwardToHost(ctx, 'extract');
      if (forwarded !== undefined) return forwarded;
    }
    const facts = hostFacts(ctx.env);
    const vault = requireVault(facts, ctx.cwd, ctx.global.vault);
    const run = await extractTranscript({
      facts,
      vaultRoot: vault.realPath,
      vaultKey: vault.key,
      backend: backendOption(ctx),
      dryRun: Boolean(ctx.options['dry-run']),
      mode: 'foreground',
      transcriptPath: path.resolve(ctx.cwd, file),
    });
    if (ctx.global.json) ctx.stdout(JSON.stringify(run, null, 2));
    else for (const line of describeRun(run, path.basename(file))) ctx.stdout(line);
    return run.windows.notDone > 0 && run.windows.called + run.windows.replayed === 0 && !run.budgetStopped ? 1 : 0;
  },
};
