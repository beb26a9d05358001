// Counters every reader fills in: what was kept, dropped as noise, redacted, or could not be read.
// `engram parse` prints them; tests compare them with a simple independent pass over the raw lines.

export interface ParseStats {
  /** Bytes read (from the start offset). */
  bytes: number;
  /** Physical lines (or top-level array elements for chat exports). */
  lines: number;
  /** Records parsed as JSON objects (including ones recovered from torn lines). */
  records: number;
  /** Records by `type` (and `system:<subtype>`), for the report. */
  recordTypes: Record<string, number>;
  turnsByRole: { user: number; assistant: number };
  sidechainTurns: number;
  /** compact_boundary records (Claude Code) or `compacted` events (Codex). */
  compactions: number;
  microcompactions: number;
  /** Legacy `{"type":"summary"}` records. */
  summaries: number;
  /** User records marked isCompactSummary (the summary written after a compaction; not a turn). */
  compactSummaries: number;
  /** Prompts typed while the agent worked and handed to it mid-turn (Claude Code queue-operation). */
  queuedPrompts: number;
  /** Turns dropped as Claude Code `isMeta` records (hook feedback, injected caveats). */
  metaRecords: number;
  thinkingBlocks: number;
  toolUses: number;
  toolResults: number;
  toolErrors: number;
  images: number;
  systemReminders: number;
  /** Engram's own fenced context blocks removed from turn text. */
  engramFences: number;
  /** Records whose uuid was already seen in this file (copied history); skipped. */
  duplicateRecords: number;
  /** Lines that were not one clean JSON object. */
  tornLines: number;
  /** Records recovered whole from torn lines. */
  recoveredRecords: number;
  /** Torn lines of which nothing could be recovered, or only part. */
  lostFragments: number;
  /** Lines longer than the reader's limit; skipped whole. */
  oversizedLines: number;
  /** Blank lines. */
  blankLines: number;
  /** JSON that parsed but was not a usable record (an array, a number, a record of the wrong shape). */
  malformedRecords: number;
  /** Secrets replaced in turn text, by kind. */
  redactions: Record<string, number>;
  /** Where the torn or skipped lines start (first 20), for the report. */
  damage: { offset: number; kind: 'torn' | 'oversized' | 'malformed'; recovered: number }[];
}

export function emptyStats(): ParseStats {
  return {
    bytes: 0,
    lines: 0,
    records: 0,
    recordTypes: {},
    turnsByRole: { user: 0, assistant: 0 },
    sidechainTurns: 0,
    compactions: 0,
    microcompactions: 0,
    summaries: 0,
    compactSummaries: 0,
    queuedPrompts: 0,
    metaRecords: 0,
    thinkingBlocks: 0,
    toolUses: 0,
    toolResults: 0,
    toolErrors: 0,
    images: 0,
    systemReminders: 0,
    engramFences: 0,
    duplicateRecords: 0,
    tornLines: 0,
    recoveredRecords: 0,
    lostFragments: 0,
    oversizedLines: 0,
    blankLines: 0,
    malformedRecords: 0,
    redactions: {},
    damage: [],
  };
}

export function noteDamage(stats: ParseStats, offset: number, kind: 'torn' | 'oversized' | 'malformed', recovered: number): void {
  if (stats.damage.length < 20) stats.damage.push({ offset, kind, recovered });
}

export function countType(stats: ParseStats, key: string): void {
  stats.recordTypes[key] = (stats.recordTypes[key] ?? 0) + 1;
}
