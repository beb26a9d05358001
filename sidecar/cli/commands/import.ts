// `engram import <export>`: runs extraction over every conversation of a Claude.ai or ChatGPT export.
// Resumable: each conversation is a session in the ledger, so a second run continues where the first stopped.
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../../src/core/errors.js';
import { forwardToHost } from '../../client/forward.js';
import { readChatExport, type ExportSummary } from '../../../src/core/transcript/chat-export.js';
import { VaultCatalog } from '../../../src/core/extract/vault-catalog.js';
import { hostFacts } from '../../host/facts.js';
import { extractHost, extractParsedSession } from '../../host/extract-runner.js';
import { requireVault } from '../../host/resolve.js';
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
    // A live host is the vault's one writer: the import runs there as one queued job (a dry run writes nothing, so it
    // runs here). Its progress lines and summary are printed when it ends, as the direct run prints them.
    if (!ctx.options['dry-run']) {
      const forwarded = await forwardToHost(ctx, 'import');
      if (forwarded !== undefined) return forwarded;
    }
    const facts = hostFacts(ctx.env);
    const vault = requireVault(facts, ctx.cwd, ctx.global.vault);
    const base = { facts, vaultRoot: vault.realPath, vaultKey: vault.key, backend: backendOption(ctx), dryRun: Boolean(ctx.options['dry-run']), mode: 'foreground' as const };
    // A first streaming pass counts conversations for the progress bar.
    const counted: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 };
    for await (const _ of readChatExport(fs.createReadStream(abs), { source: abs }, counted)) void _;
    if (counted.conversations === 0) throw new EngramError('usage', `${file} holds no Claude.ai or ChatGPT conversations`, 'give the conversations.json of a data export');
    const host = extractHost({ ...base, source: 'import-claude' });
    const catalog = await VaultCatalog.load(host.vault);
    const totals = { conversations: 0, resumed: 0, created: 0, extended: 0, rejected: 0, errors: 0, tokens: 0 };
    const runs = [];
    let lastShown = -1;
    ctx.interrupt?.leaves(base.dryRun ? 'nothing was written (--dry-run)' : `the conversations imported so far are kept; \`engram import ${file}\` again resumes after them`);
    // On a terminal one line redrawn in place; elsewhere a line every 10%.
    const drawn = ctx.terminal ? terminalProgress(ctx.terminal) : undefined;
    if (drawn) ctx.interrupt?.onInterrupt(drawn.end);
    for await (const session of readChatExport(fs.createReadStream(abs), { source: abs })) {
      const source = session.meta.agent === 'chatgpt' ? 'import-chatgpt' : 'import-claude';
      const run = await extractParsedSession({ ...base, source, catalog }, host, session);
      totals.conversations++;
      if (run.windows.total === 0) totals.resumed++;
      totals.created += run.beats.created;
      totals.extended += run.beats.extended;
      totals.rejected += run.beats.rejected;
      totals.errors += run.errors.length;
      totals.tokens += run.tokens.input + run.tokens.output;
      if (ctx.global.json) runs.push(run);
      else if (ctx.options.verbose && run.notes.length) for (const l of describeRun(run, session.meta.title ?? session.meta.sessionId)) ctx.stdout(l);
      const pct = Math.floor((totals.conversations / counted.conversations) * 100);
      const line = `${bar(totals.conversations, counted.conversations)} ${totals.conversations}/${counted.conversations} conversations, ${totals.created} notes`;
      if (drawn) drawn.show(line);
      else if (pct >= lastShown + 10 || totals.conversations === counted.conversations) {
        ctx.stderr(line);
        lastShown = pct;
      }
    }
    drawn?.done();
    if (ctx.global.json) ctx.stdout(JSON.stringify({ file: abs, ...totals, skippedElements: counted.skipped, runs }, null, 2));
    else {
      ctx.stdout(
        `${path.basename(file)}: ${totals.conversations} conversations (${totals.resumed} already done), ${base.dryRun ? 'would write' : 'wrote'} ${totals.created} notes, extended ${totals.extended}, rejected ${totals.rejected} beats` +
          (totals.tokens ? `, ${totals.tokens} tokens` : '') + (totals.errors ? `; ${totals.errors} errors (see $ENGRAM_HOME/logs/extract-runs.jsonl)` : ''),
      );
    }
    return 0;
  },
};
