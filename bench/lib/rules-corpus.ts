// The `rules` extractor over the real transcripts of the corpus (../shared/corpus/transcripts), as `engram setup`
// runs it over a new user's past sessions: every Claude Code and Codex transcript read by the host's reader and
// extracted through the real pipeline (windows, grounding, dedup, note writer) into an in-memory vault.
import fs from 'node:fs';
import path from 'node:path';
import { RulesBackend } from '../../src/core/extract/backends/rules.js';
import { extractSession } from '../../src/core/extract/extract.js';
import { MemoryStateStore } from '../../src/core/extract/state-store.js';
import { parseNote } from '../../src/core/note/frontmatter.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { readTranscriptFile } from '../../sidecar/hosting/transcript-files.js';

export interface FiledNote {
  title: string;
  type: string;
  body: string;
}

export interface TranscriptResult {
  /** Path relative to the corpus transcripts folder. */
  file: string;
  turns: { user: number; assistant: number };
  /** User turns a person typed: not a subagent's prompt, not replaced by the corpus's redaction placeholder. */
  humanTurns: number;
  skipped?: string;
  notes: FiledNote[];
  rejected: string[];
}

/** Every .jsonl transcript under `dir` (Claude Code sessions, their subagents, Codex rollouts), sorted. */
export function corpusTranscripts(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export async function rulesOnTranscript(dir: string, file: string): Promise<TranscriptResult> {
  const { sessions } = await readTranscriptFile(file);
  const result: TranscriptResult = { file: path.relative(dir, file), turns: { user: 0, assistant: 0 }, humanTurns: 0, notes: [], rejected: [] };
  for (const session of sessions) {
    for (const t of session.turns) {
      result.turns[t.role]++;
      if (t.role === 'user' && !t.sidechain && !/^\[REDACTED_TEXT len=/.test(t.text)) result.humanTurns++;
    }
    const vault = new MemoryVault();
    const run = await extractSession({ ports: { vault, clock: { now: () => Date.UTC(2026, 0, 1) } }, state: new MemoryStateStore(), vaultDir: 'vaults/bench', backend: new RulesBackend({ paid: false }), session });
    if (run.skipped) result.skipped = run.skipped;
    result.rejected.push(...run.rejected.map((r) => `${r.title ?? '?'}: ${r.reason}`));
    for (const f of await vault.list()) {
      const note = parseNote((await vault.read(f.path)).text);
      const title = f.path.slice(f.path.lastIndexOf('/') + 1).replace(/\.md$/, '');
      result.notes.push({ title: typeof note.data?.title === 'string' ? note.data.title : title, type: String(note.data?.type ?? ''), body: note.body.trim() });
    }
  }
  return result;
}

export async function rulesOnCorpus(dir: string): Promise<TranscriptResult[]> {
  const out: TranscriptResult[] = [];
  for (const f of corpusTranscripts(dir)) out.push(await rulesOnTranscript(dir, f));
  return out;
}
