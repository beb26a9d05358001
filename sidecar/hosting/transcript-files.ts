// Opens transcripts on disk for the pure readers in src/core/transcript: a chunk stream from a
// byte offset, format detection from the file's head, and one call that reads a whole file.
import fs from 'node:fs';
import os from 'node:os';
import { EngramError } from '../../src/core/errors.js';
import { setSessionProject } from './resolve.js';
import {
  detectFormat,
  readChatExport,
  readSession,
  type ExportSummary,
  type ReaderOptions,
  type Session,
  type TranscriptFormat,
} from '../../src/core/transcript/index.js';

const CHUNK = 1 << 20;
const HEAD = 64 * 1024;

/** The file's bytes from `start`, as the readers take them (1 MiB chunks; memory stays bounded). */
export function openChunks(file: string, start = 0): AsyncIterable<Uint8Array> {
  return fs.createReadStream(file, { start, highWaterMark: CHUNK }) as AsyncIterable<Uint8Array>;
}

/**
 * Claude Code's project folder for the temporary working directory of one of Engram's nested `claude` calls
 * (`<tmp>/engram-nested-XXXXXX` becomes `-tmp-engram-nested-XXXXXX`, or `-private-var-…-T-engram-nested-XXXXXX` on
 * macOS). Such folders hold Engram's own calls, never a user's session.
 */
export function isNestedCallFolder(name: string): boolean {
  return /(?:^|-)engram-nested-[A-Za-z0-9]{6}$/.test(name);
}

/**
 * True when a Claude Code or Codex transcript is one of Engram's own LLM calls: its first user message starts with
 * ENGRAM_PROMPT_MARKER (read from the file's first 64 KiB by the same reader extraction uses).
 */
export async function isEngramOwnTranscript(file: string): Promise<boolean> {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(HEAD);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, HEAD, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
  const format = detectFormat(head.toString('utf8'), file);
  if (format !== 'claude-code' && format !== 'codex') return false;
  const session = await readSession([new Uint8Array(head)], format, { source: file });
  return session.meta.engramInternal === true;
}

export function detectFileFormat(file: string): TranscriptFormat {
  let fd: number;
  try {
    if (fs.statSync(file).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    fd = fs.openSync(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new EngramError('not-found', `transcript not found: ${file}`);
    if (code === 'EISDIR') throw new EngramError('usage', `${file} is a folder; give a transcript file (.jsonl or conversations.json)`);
    throw new EngramError('io', `cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const buf = Buffer.alloc(HEAD);
    const n = fs.readSync(fd, buf, 0, HEAD, 0);
    return detectFormat(buf.subarray(0, n).toString('utf8'), file);
  } finally {
    fs.closeSync(fd);
  }
}

export interface FileRead {
  format: TranscriptFormat;
  sessions: Session[];
  /** For chat exports: conversations read and elements skipped. */
  exportSummary?: ExportSummary;
}

/** Reads a transcript file of any supported format. Chat exports give one session per conversation. */
export async function readTranscriptFile(file: string, opts: ReaderOptions & { format?: TranscriptFormat } = {}): Promise<FileRead> {
  const format = opts.format ?? detectFileFormat(file);
  const readerOpts: ReaderOptions = { ...opts, source: opts.source ?? file };
  if (format === 'claude-code' || format === 'codex') {
    const session = await readSession(openChunks(file, opts.startOffset ?? 0), format, readerOpts);
    setSessionProject(session.meta, os.homedir());
    return { format, sessions: [session] };
  }
  if (format === 'chat-export') {
    const exportSummary: ExportSummary = { conversations: 0, skipped: 0, oversized: 0 };
    const sessions: Session[] = [];
    for await (const s of readChatExport(openChunks(file), readerOpts, exportSummary)) sessions.push(s);
    return { format, sessions, exportSummary };
  }
  throw new EngramError(
    'usage',
    `${file} is not a transcript Engram can read`,
    'expected a Claude Code session (.jsonl), a Codex rollout (rollout-*.jsonl), or a Claude.ai / ChatGPT export (conversations.json)',
  );
}
