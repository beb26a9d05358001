// The note-format contract of DESIGN.md, read from a note's frontmatter (Cyberbrain's cb_* keys as equivalents).

export const DEFAULT_TYPES = ['decision', 'correction', 'insight', 'problem', 'failed-approach', 'reference'] as const;

export type EngramSource =
  | 'hook-extraction'
  | 'manual'
  | 'import-claude'
  | 'import-chatgpt'
  | 'import-codex'
  | 'restructure'
  | 'review';

/** What Engram knows about a note, normalised. Every field is optional except path and title. */
export interface NoteMeta {
  path: string;
  /** File name without `.md`: what a `[[wikilink]]` names. */
  title: string;
  type?: string;
  scope?: 'project' | 'general';
  project?: string;
  summary?: string;
  tags: string[];
  related: string[];
  /** Epoch ms. */
  created?: number;
  updated?: number;
  /** ISO date `yyyy-mm-dd`: present = working memory. */
  reviewAfter?: string;
  forgetAfter?: string;
  supersededBy?: string;
  confidence?: number;
  locked: boolean;
  engramId?: string;
  engramSource?: string;
  engramSession?: string;
  engramAgent?: string;
  aliases: string[];
}

export function titleFromPath(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.toLowerCase().endsWith('.md') ? base.slice(0, -3) : base;
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  return undefined;
}

function list(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\s]+/) : [v];
  return items.map((x) => str(x)).filter((x): x is string => x !== undefined).map((x) => x.replace(/^#/, '').trim()).filter(Boolean);
}

function listRaw(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  const items = Array.isArray(v) ? v : [v];
  return items.map((x) => str(x)).filter((x): x is string => x !== undefined);
}

function time(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  const s = str(v);
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

function date(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  const s = str(v);
  if (!s) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(s);
  return m ? m[1] : undefined;
}

function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === 'yes' || v === 1;
}

export function readNoteMeta(path: string, data: Record<string, unknown>): NoteMeta {
  const d = data;
  const ephemeral = bool(d.cb_ephemeral);
  const scope = str(d.scope);
  const confidence = typeof d.confidence === 'number' ? d.confidence : Number(str(d.confidence));
  return {
    path,
    title: titleFromPath(path),
    type: str(d.type),
    scope: scope === 'project' || scope === 'general' ? scope : undefined,
    project: str(d.project),
    summary: str(d.summary) ?? str(d.description),
    tags: list(d.tags ?? d.tag),
    related: listRaw(d.related),
    created: time(d.created ?? d.cb_created),
    updated: time(d.updated ?? d.cb_modified),
    reviewAfter: date(d.review_after) ?? (ephemeral ? date(d.cb_review_after) : undefined),
    forgetAfter: date(d.forget_after),
    supersededBy: str(d.superseded_by),
    confidence: Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : undefined,
    locked: bool(d.locked) || bool(d.cb_lock),
    engramId: str(d.engram_id) ?? str(d.id),
    engramSource: str(d.engram_source) ?? str(d.cb_source),
    engramSession: str(d.engram_session) ?? str(d.cb_session),
    engramAgent: str(d.engram_agent),
    aliases: listRaw(d.aliases ?? d.alias),
  };
}
