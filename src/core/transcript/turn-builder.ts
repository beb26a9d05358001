// Shared last step of every reader: a draft turn becomes a Turn (noise removed), or is dropped when
// nothing is left for extraction to see; finished turns are then redacted in batches (secrets
// replaced, counted by kind) before a reader hands them out.
import { cleanText } from './noise.js';
import { addCounts, redactTexts } from './redact.js';
import { startsWithPromptMarker } from './fence.js';
import { withoutPrivate } from './private.js';
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
  /** Leave e-mail addresses in the text (config `extract.keep_emails`; default: redacted like secrets). */
  keepEmails?: boolean;
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
      // Private spans go first: nothing after this point (redaction, windows, the model, notes) ever sees them.
      const c = cleanText(withoutPrivate(p).text);
      this.stats.systemReminders += c.systemReminders;
      this.stats.engramFences += c.engramFences;
      if (c.text) cleaned.push(c.text);
    }
    const text = cleaned.join('\n\n');
    const errors = d.errors.map((e) => withoutPrivate(e).text);
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

/**
 * Redacts finished turns (their text and errors) and the session title in one batch, in place, and
 * counts what was replaced in `stats`. Every reader calls this before a turn leaves it.
 */
export async function redactTurns(turns: Turn[], stats: ParseStats, opts: FinishOptions, meta?: SessionMeta): Promise<Turn[]> {
  if (meta?.title !== undefined) meta.title = withoutPrivate(meta.title).text;
  if (opts.redact === false) return turns;
  const texts: string[] = [];
  for (const t of turns) texts.push(t.text, ...t.errors);
  const withTitle = meta?.title !== undefined;
  if (withTitle) texts.push(meta.title!);
  if (!texts.length) return turns;
  const results = await redactTexts(texts, { keepEmails: opts.keepEmails });
  let i = 0;
  for (const t of turns) {
    t.text = results[i++].text;
    t.errors = t.errors.map(() => results[i++].text);
  }
  if (withTitle) meta.title = results[i].text;
  for (const r of results) addCounts(stats.redactions, r.counts);
  return turns;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
