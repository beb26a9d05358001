// The user's existing Claude Code transcripts (the backlog setup queues), and what an LLM pass over them would cost.
import fs from 'node:fs';
import path from 'node:path';
import { claudeDir } from '../hosting/paths.js';
import { isEngramOwnTranscript, isNestedCallFolder } from '../hosting/transcript-files.js';

export interface TranscriptFile {
  path: string;
  sessionId: string;
  bytes: number;
  mtime: number;
}

/**
 * `<claude dir>/projects/<project>/<session>.jsonl`, subagent files left out (they belong to their session), and
 * Engram's own nested calls left out (docs/ARCHITECTURE.md invariant 7): their `…-engram-nested-XXXXXX` project folders, and any
 * transcript whose first user message starts with Engram's prompt marker.
 */
export async function listClaudeTranscripts(env: NodeJS.ProcessEnv, sinceMs = 0): Promise<TranscriptFile[]> {
  const root = path.join(claudeDir(env), 'projects');
  const out: TranscriptFile[] = [];
  let projects: string[];
  try {
    projects = fs.readdirSync(root);
  } catch {
    return out;
  }
  for (const p of projects) {
    if (isNestedCallFolder(p)) continue;
    let names: string[];
    try {
      names = fs.readdirSync(path.join(root, p));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('.jsonl')) continue;
      const file = path.join(root, p, n);
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st?.isFile() || st.mtimeMs < sinceMs) continue;
      if (await isEngramOwnTranscript(file)) continue;
      out.push({ path: file, sessionId: n.slice(0, -'.jsonl'.length), bytes: st.size, mtime: st.mtimeMs });
    }
  }
  return out.sort((a, b) => b.mtime - a.mtime);
}

export interface BacklogEstimate {
  transcripts: number;
  bytes: number;
  /** Conversation text an LLM pass would read (noise removed), in characters. */
  chars: number;
  /** Input tokens for an LLM pass, about 4 characters a token plus the prompt per window. */
  tokens: number;
  sampled: boolean;
}

const PROMPT_TOKENS_PER_WINDOW = 1500;
const WINDOW_CHARS = 24_000;

export async function estimateBacklog(files: TranscriptFile[], readChars: (file: string) => Promise<number>, byteBudget = 200 * 1024 * 1024): Promise<BacklogEstimate> {
  let bytes = 0;
  let readBytes = 0;
  let chars = 0;
  for (const f of files) {
    bytes += f.bytes;
    if (readBytes + f.bytes > byteBudget) continue;
    try {
      chars += await readChars(f.path);
      readBytes += f.bytes;
    } catch {
      // an unreadable transcript is skipped by extraction too
    }
  }
  const sampled = readBytes < bytes;
  if (sampled && readBytes > 0) chars = Math.round((chars * bytes) / readBytes);
  const windows = Math.ceil(chars / WINDOW_CHARS);
  return { transcripts: files.length, bytes, chars, tokens: Math.round(chars / 4) + windows * PROMPT_TOKENS_PER_WINDOW, sampled };
}
