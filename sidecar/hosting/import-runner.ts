// An import of a Claude.ai or ChatGPT data export: every conversation through the extraction pipeline, resumable (each
// conversation is a session in the ledger). A host runs it for the CLI (`import.run`, the live one or the CLI's
// in-process one) and streams the progress back.
import fs from 'node:fs';
import { EngramError } from '../../src/core/errors.js';
import type { ExtractRun } from '../../src/core/extract/extract.js';
import { VaultCatalog } from '../../src/core/extract/vault-catalog.js';
import type { ImportProgress, ImportResult } from '../../src/core/protocol/index.js';
import { readChatExport, type ExportSummary } from '../../src/core/transcript/chat-export.js';
import { extractHost, extractParsedSession, type ExtractContext } from './extract-runner.js';

export interface ImportOptions {
  /** Called after each conversation, with the run (a caller may list its notes). */
  onConversation?: (progress: ImportProgress, run: ExtractRun, title: string) => void;
  /** Keep every conversation's run in the result (`--json`). */
  keepRuns?: boolean;
}

export async function importExport(base: ExtractContext, file: string, opts: ImportOptions = {}): Promise<ImportResult> {
  if (!fs.existsSync(file)) throw new EngramError('not-found', `no such file: ${file}`);
  // A first streaming pass counts conversations for the progress bar.
  const counted: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 };
  for await (const _ of readChatExport(fs.createReadStream(file), { source: file }, counted)) void _;
  if (counted.conversations === 0) throw new EngramError('usage', `${file} holds no Claude.ai or ChatGPT conversations`, 'give the conversations.json of a data export');
  const host = extractHost({ ...base, source: 'import-claude' });
  const catalog = await VaultCatalog.load(host.vault);
  const result: ImportResult = { file, conversations: 0, resumed: 0, created: 0, extended: 0, rejected: 0, errors: 0, tokens: 0, skippedElements: counted.skipped, runs: [] };
  for await (const session of readChatExport(fs.createReadStream(file), { source: file })) {
    const source = session.meta.agent === 'chatgpt' ? 'import-chatgpt' : 'import-claude';
    const run = await extractParsedSession({ ...base, source, catalog }, host, session);
    result.conversations++;
    if (run.windows.total === 0) result.resumed++;
    result.created += run.beats.created;
    result.extended += run.beats.extended;
    result.rejected += run.beats.rejected;
    result.errors += run.errors.length;
    result.tokens += run.tokens.input + run.tokens.output;
    const title = session.meta.title ?? session.meta.sessionId;
    if (opts.keepRuns) result.runs.push({ ...run, title });
    opts.onConversation?.({ done: result.conversations, total: counted.conversations, created: result.created }, run, title);
  }
  return result;
}
