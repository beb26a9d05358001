// The note format of docs/ARCHITECTURE.md, read from a note's frontmatter (Cyberbrain's cb_* keys as equivalents).

export const DEFAULT_TYPES = ['decision', 'correction', 'insight', 'problem', 'failed-approach', 'reference'] as const;

export type EngramSource =
  | 'hook-extraction'
  | 'manual'
  | 'import-claude'
  | 'import-chatgpt'
  | 'import-codex'
  | 'restructure'
  | 'review'
  | 'claude-memory';

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
  /** `inject: false`: never injected by a hook (the user's "never inject this", Claude Code's own MEMORY.md index). */
  noInject?: boolean;
  /** The team note this note is a copy of (`engram_team.note`, written on copy: src/core/team/copy.ts). */
  teamNote?: string;
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

/**
 * A date at the start of a file name, as daily notes and Zettelkasten ids carry it: `2024-03-01.md`,
 * `2024-03-01 Standup.md`, `20240301.md`, `202211141513 - Title.md` (yyyymmddHHmm, read as UTC). Epoch ms.
 */
export function dateFromFileName(path: string): number | undefined {
  const base = titleFromPath(path);
  const m = /^(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?:[T _-]?(\d{2})[:.]?(\d{2})(?:[:.]?(\d{2}))?)?(?!\d)/.exec(base);
  if (!m) return undefined;
  const [y, mo, d, h = 0, mi = 0, se = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return undefined;
  const t = Date.UTC(y, mo - 1, d, h, mi, se);
  // 2023-02-30 is no date: Date.UTC would roll it into March.
  return new Date(t).getUTCDate() === d ? t : undefined;
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
    // The date keys people write, before the file's own time (a copied or synced vault has fresh file times).
    created: time(d.created) ?? time(d.cb_created) ?? time(d.date_created) ?? time(d.date) ?? dateFromFileName(path),
    updated: time(d.updated) ?? time(d.cb_modified) ?? time(d.modified) ?? time(d.date_modified),
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
    ...(d.inject === false || d.inject === 'false' || d.inject === 'no' ? { noInject: true } : {}),
    ...teamCopy(d.engram_team),
  };
}

/** `engram_team: { team, note, author, … }` of a team note copied into the vault: the team note's id. */
function teamCopy(v: unknown): { teamNote?: string } {
  const id = v && typeof v === 'object' && !Array.isArray(v) ? str((v as Record<string, unknown>).note) : undefined;
  return id ? { teamNote: id } : {};
}
