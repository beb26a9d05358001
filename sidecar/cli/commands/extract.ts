// `engram extract <transcript>`: extracts a Claude Code or Codex transcript into the vault, exactly once.
import path from 'node:path';
import { BACKENDS, type BackendName } from '../../../src/core/config.js';
import { EngramError } from '../../../src/core/errors.js';
import type { ExtractRun } from '../../../src/core/extract/extract.js';
import { callEngine } from '../../client/forward.js';
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
  if (run.waiting) return [`${label}: not extracted now: ${run.waiting}`];
  if (w.total === 0) return [`${label}: nothing new to extract (every turn is in the ledger)`];
  if (run.wouldSend) {
    const n = run.wouldSend.windows;
    return [
      `${label}: dry run, nothing sent: a real run would send ${n} window${n === 1 ? '' : 's'} to ${run.backend} (${run.model}), about ${run.wouldSend.inputTokens.toLocaleString('en-US')} input tokens${w.total > n ? `, and replay ${w.total - n} journalled` : ''}.`,
      '  Run it without --dry-run to extract, or with --backend rules --dry-run to see what the offline pass would file.',
    ];
  }
  lines.push(
    `${label}: ${w.total} window${w.total === 1 ? '' : 's'} (${w.called} sent to ${run.backend}, ${w.replayed} replayed from the journal); ` +
      `${b.extracted} beats, ${head} ${b.created} new, ${b.extended} extended, ${b.alreadyWritten + b.duplicates} already there, ${b.rejected} rejected`,
  );
  for (const n of run.notes) lines.push(`  ${(run.dryRun && n.action === 'created' ? 'would write' : verb[n.action]).padEnd(18)} ${n.path}  (${n.type})${n.proposal ? `  possible duplicate: proposal ${n.proposal}` : ''}`);
  const tokens = run.tokens.input + run.tokens.output;
  if (tokens > 0) lines.push(`  tokens ${run.tokens.input} in / ${run.tokens.output} out${run.costUsd > 0 ? `, ~$${run.costUsd.toFixed(4)}` : ''}; LLM ${run.llmMs} ms of ${run.durationMs} ms`);
  for (const r of run.rejected) lines.push(`  rejected           ${r.title ? `"${r.title}": ` : ''}${r.reason}`);
  if (run.budgetStopped) lines.push(`  stopped: ${run.budgetStopped}`);
  for (const e of run.errors) lines.push(`  error: ${e}`);
  for (const f of run.failed) if (f.hint) lines.push(`  fix: ${f.hint}`);
  if (run.failed.length) {
    const n = run.windows.notDone;
    lines.push(`  ${n} window${n === 1 ? '' : 's'} not extracted: ${n === 1 ? 'it stays' : 'they stay'} pending (nothing filed in ${n === 1 ? 'its' : 'their'} place) and ${n === 1 ? 'is' : 'are'} retried by the next run${run.pending ? ` (the host tries again after ${run.pending.retryAt})` : ''}.`);
  }
  return lines;
}

export const command: CommandDefinition = {
  usage: 'extract <transcript> [--vault <path>] [--backend <name>] [--dry-run] [--json]',
  description: 'Extract decisions, corrections and insights from an agent transcript (Claude Code JSONL or Codex rollout) into the vault. Only the part not extracted before is read; running it twice adds nothing.',
  options: {
    backend: { type: 'string', valueName: '<name>', description: `LLM backend (${BACKENDS.join(', ')}); default from config` },
    'dry-run': { type: 'boolean', description: 'Write nothing and call no LLM: say how many windows and tokens a real run would send (with --backend rules, show what the offline pass would file)' },
  },
  details: 'Examples:\n  engram extract ~/.claude/projects/-home-me-app/1234.jsonl --backend rules\n  engram extract session.jsonl --dry-run --json',
  async run(ctx) {
    const file = ctx.args[0];
    if (!file) throw new EngramError('usage', 'which transcript? give its path');
    const transcriptPath = path.resolve(ctx.cwd, file);
    const backend = backendOption(ctx);
    // The vault's engine runs it: its live host (the vault's one writer, queued with the hooks' jobs), else the same
    // host here. A dry run writes nothing, so it runs here.
    const dryRun = Boolean(ctx.options['dry-run']);
    const { result: run } = await callEngine(ctx, 'extract.run', { path: transcriptPath, backend, dryRun: dryRun || undefined }, { deadlineMs: 60 * 60_000, dryRun });
    if (ctx.global.json) ctx.stdout(JSON.stringify(run, null, 2));
    else for (const line of describeRun(run, path.basename(file))) ctx.stdout(line);
    // Any window that failed is work not done: the exit code says so (it stays pending for the next run).
    return run.failed.length > 0 || (run.windows.notDone > 0 && !run.budgetStopped) ? 1 : 0;
  },
};
