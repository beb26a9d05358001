// Shared last step of every reader: a draft turn becomes a Turn (noise removed, secrets redacted,
// counted), or is dropped when nothing is left for extraction to see.
import { cleanText } from './noise.js';
import { addCounts, redactSecrets } from './redact.js';
import { startsWithPromptMarker } from './fence.js';
import type { ParseStats } from './parse-stats.js';
import type { SessionMeta, Turn, TurnRole } from './types.js';

export interface DraftTurn {
  role: TurnRole;
  parts: string[];
  timestamp?: string;
  uuid: string;
  lastUuid: string;
  offset: number;
  endOffset: number;
  tools: string[];
  errors: string[];
  sidechain: boolean;
  /** Tool call ids issued in this turn (results are matched back to it while it is open). */
  toolIds: string[];
  /** Grouping key: Claude Code message.id of an assistant turn. */
  messageId?: string;
}

export interface FinishOptions {
  /** Redact secrets (default true; off only for debugging a parse). */
  redact?: boolean;
}

export function newDraft(role: TurnRole, uuid: string, offset: number, end: number, sidechain: boolean, timestamp?: string): DraftTurn {
  return { role, parts: [], timestamp, uuid, lastUuid: uuid, offset, endOffset: end, tools: [], errors: [], sidechain, toolIds: [] };
}

export class TurnFinisher {
  private next = 0;
  private sawUser = false;

  constructor(
    private readonly stats: ParseStats,
    private readonly meta: SessionMeta,
    private readonly opts: FinishOptions = {},
  ) {}

  finish(d: DraftTurn): Turn | undefined {
    if (d.role === 'user' && !this.sawUser && !d.sidechain) {
      const first = d.parts.find((p) => p.trim() !== '');
      if (first !== undefined) {
        this.sawUser = true;
        if (startsWithPromptMarker(first)) this.meta.engramInternal = true;
      }
    }
    const cleaned: string[] = [];
    for (const p of d.parts) {
      const c = cleanText(p);
      this.stats.systemReminders += c.systemReminders;
      this.stats.engramFences += c.engramFences;
      if (c.text) cleaned.push(c.text);
    }
    let text = cleaned.join('\n\n');
    let errors = d.errors;
    if (this.opts.redact !== false) {
      const r = redactSecrets(text);
      text = r.text;
      addCounts(this.stats.redactions, r.counts);
      errors = errors.map((e) => {
        const er = redactSecrets(e);
        addCounts(this.stats.redactions, er.counts);
        return er.text;
      });
    }
    if (!text && d.tools.length === 0 && errors.length === 0) return undefined;
    // A user record whose only text was harness noise is not a user turn.
    if (d.role === 'user' && !text) return undefined;
    const turn: Turn = {
      index: this.next++,
      role: d.role,
      text,
      uuid: d.uuid,
      offset: d.offset,
      tools: d.tools,
      errors,
      sidechain: d.sidechain,
      lastUuid: d.lastUuid,
      endOffset: d.endOffset,
    };
    if (d.timestamp) turn.timestamp = d.timestamp;
    this.stats.turnsByRole[d.role]++;
    if (d.sidechain) this.stats.sidechainTurns++;
    return turn;
  }
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
