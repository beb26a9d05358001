// `engram import <export>`: runs extraction over every conversation of a Claude.ai or ChatGPT export.
// Resumable: each conversation is a session in the ledger, so a second run continues where the first stopped.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../../src/core/errors.js';
import { callEngine } from '../../client/forward.js';
import { IMPORT_PROGRESS, type ImportProgress } from '../../../src/core/protocol/index.js';
import type { CommandDefinition } from '../types.js';
import { terminalProgress } from '../progress.js';
import { backendOption, describeRun } from './extract.js';

function bar(done: number, total: number, width = 24): string {
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

export const command: CommandDefinition = {
  usage: 'import <conversations.json> [--vault <path>] [--backend <name>] [--dry-run] [--json]',
  description: 'Extract every conversation of a Claude.ai or ChatGPT data export into the vault, with progress. Interrupted? Run it again: finished conversations are skipped.',
  options: {
    backend: { type: 'string', valueName: '<name>', description: 'LLM backend; default from config' },
    'dry-run': { type: 'boolean', description: 'Show what would be written; write nothing' },
    verbose: { type: 'boolean', short: 'v', description: 'List every note written' },
  },
  async run(ctx) {
    const file = ctx.args[0];
    if (!file) throw new EngramError('usage', 'which export? give the path of its conversations.json');
    const abs = path.resolve(ctx.cwd, file);
    if (!fs.existsSync(abs)) throw new EngramError('not-found', `no such file: ${abs}`);
    const backend = backendOption(ctx);
    const dryRun = Boolean(ctx.options['dry-run']);
    const keepRuns = Boolean(ctx.global.json);
    ctx.interrupt?.leaves(dryRun ? 'nothing was written (--dry-run)' : `the conversations imported so far are kept; \`engram import ${file}\` again resumes after them`);
    // On a terminal one line redrawn in place; elsewhere a line every 10%.
    const drawn = ctx.terminal ? terminalProgress(ctx.terminal) : undefined;
    if (drawn) ctx.interrupt?.onInterrupt(drawn.end);
    let lastShown = -1;
    const show = (p: ImportProgress) => {
      const line = `${bar(p.done, p.total)} ${p.done}/${p.total} conversations, ${p.created} notes`;
      const pct = Math.floor((p.done / p.total) * 100);
      if (drawn) drawn.show(line);
      else if (pct >= lastShown + 10 || p.done === p.total) {
        ctx.stderr(line);
        lastShown = pct;
      }
    };
    // The vault's engine runs it as one queued job, its progress streamed here: on its live host (the vault's one
    // writer), else on the same host here. A dry run writes nothing, so it runs here.
    const { result } = await callEngine(ctx, 'import.run', { path: abs, backend, keepRuns: keepRuns || Boolean(ctx.options.verbose), dryRun: dryRun || undefined }, {
      deadlineMs: 24 * 60 * 60_000,
      dryRun,
      onNotification: (method, params) => {
        if (method === IMPORT_PROGRESS) show(params as ImportProgress);
      },
    });
    if (ctx.options.verbose && !ctx.global.json) for (const run of result.runs) if (run.notes.length) for (const l of describeRun(run, run.title ?? run.sessionId)) ctx.stdout(l);
    drawn?.done();
    if (ctx.global.json) ctx.stdout(JSON.stringify(result, null, 2));
    else {
      ctx.stdout(
        `${path.basename(file)}: ${result.conversations} conversations (${result.resumed} already done), ${dryRun ? 'would write' : 'wrote'} ${result.created} notes, extended ${result.extended}, rejected ${result.rejected} beats` +
          (result.tokens ? `, ${result.tokens} tokens` : '') + (result.errors ? `; ${result.errors} errors (see $ENGRAM_HOME/logs/extract-runs.jsonl)` : ''),
      );
    }
    return 0;
  },
};
