// The normalised session model every reader produces (Claude Code, Codex, chat exports).

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
}

export interface SessionMeta {
  sessionId: string;
  agent: AgentName;
  project?: string;
  cwd?: string;
  gitBranch?: string;
  /** The agent's version string, when recorded. */
  version?: string;
  startedAt?: string;
  endedAt?: string;
  /** Source file path (as given to the reader). */
  source?: string;
}

export interface Session {
  meta: SessionMeta;
  turns: Turn[];
}
