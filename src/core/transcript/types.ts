// The normalised session model every reader produces (Claude Code, Codex, chat exports).
import type { ParseStats } from './parse-stats.js';

export type AgentName = 'claude-code' | 'codex' | 'claude-ai' | 'chatgpt';
export type TurnRole = 'user' | 'assistant';

export interface Turn {
  /** Position in the session (0-based, in reading order of the kept turns). */
  index: number;
  role: TurnRole;
  /** The text extraction sees: noise removed, secrets redacted. */
  text: string;
  /** ISO 8601, when the source has one. */
  timestamp?: string;
  /** Source record uuid (Claude Code) or a stable synthetic id; used by the ledger. */
  uuid: string;
  /** Byte offset of the source record in the file (a hint for incremental reads). */
  offset: number;
  /** Tool names used in this turn (assistant turns). */
  tools: string[];
  /** Error messages seen in tool results that followed this turn. */
  errors: string[];
  /** Part of a subagent (sidechain) conversation. */
  sidechain: boolean;
  /** Uuid of the last source record folded into this turn (an API message split over several lines). */
  lastUuid?: string;
  /** Byte offset just past the last source record of this turn (where an incremental read may resume). */
  endOffset?: number;
}

export interface SessionMeta {
  sessionId: string;
  agent: AgentName;
  /** Readers set the base name of cwd as a hint; hosts resolve the real project (docs/configuration.md, which project). */
  project?: string;
  cwd?: string;
  /** Other folders the session's records ran in (a resumed session, a worktree): clues to the project when cwd is gone. */
  otherCwds?: string[];
  /** Set when the project is a guess (the session's folder no longer exists): why, for the note to say. */
  projectGuess?: string;
  gitBranch?: string;
  /** The agent's version string, when recorded. */
  version?: string;
  startedAt?: string;
  endedAt?: string;
  /** Source file path (as given to the reader). */
  source?: string;
  /** Conversation title (chat exports, Claude Code `summary`/slug when present). */
  title?: string;
  /** A subagent transcript (`subagents/agent-*.jsonl`); `compact` = Claude Code's own compaction agent. */
  subagent?: 'task' | 'compact';
  /** Subagent id (Claude Code `agentId`), for subagent transcripts. */
  agentId?: string;
  /** For a subagent transcript: the session that started it (its own sessionId is `<parent>:agent-<id>`). */
  parentSessionId?: string;
  /** The session is one of Engram's own extraction calls (its first user turn starts with ENGRAM_PROMPT_MARKER): never queue it. */
  engramInternal?: boolean;
}

export interface Session {
  meta: SessionMeta;
  turns: Turn[];
  /** What the reader dropped, skipped or could not read (see parse-stats.ts). */
  stats?: ParseStats;
}
