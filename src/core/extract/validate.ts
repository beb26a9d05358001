// Validates each beat of a parsed reply against the schema; a bad entry is dropped with a reason, never guessed.
import type { Beat, Durability } from './beat.js';

export interface Rejection {
  index: number;
  reason: string;
  title?: string;
}

export interface ValidationResult {
  beats: Beat[];
  rejected: Rejection[];
}

export interface ValidateOptions {
  /** The vault's beat types. */
  types: readonly string[];
}

function asString(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function asStringList(v: unknown): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is string => typeof x === 'string').map((s) => s.trim()).filter(Boolean);
}

/** Turn citations as numbers: accepts 3, "3", "3-5", [3, "4"]. */
export function asTurnList(v: unknown): number[] | undefined {
  const items: unknown[] = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  const out = new Set<number>();
  for (const item of items) {
    if (typeof item === 'number' && Number.isInteger(item) && item >= 0) out.add(item);
    else if (typeof item === 'string') {
      const range = /^\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$/.exec(item);
      if (!range) return undefined;
      const a = Number(range[1]);
      const b = range[2] ? Number(range[2]) : a;
      if (b < a || b - a > 50) return undefined;
      for (let i = a; i <= b; i++) out.add(i);
    } else return undefined;
  }
  return [...out].sort((x, y) => x - y);
}

function normaliseType(raw: string, types: readonly string[]): string | undefined {
  const t = raw.toLowerCase().replace(/[\s_]+/g, '-');
  if (types.includes(t)) return t;
  const plural = t.endsWith('s') ? t.slice(0, -1) : t;
  if (types.includes(plural)) return plural;
  return undefined;
}

function normaliseDurability(raw: Record<string, unknown>): Durability | undefined {
  const d = raw.durability ?? raw.memory ?? raw.kind;
  if (d === undefined) return raw.ephemeral === true || raw.working_memory === true ? 'working' : 'durable';
  if (typeof d !== 'string') return undefined;
  const s = d.toLowerCase();
  if (/^(durable|permanent|long[- ]?term)$/.test(s)) return 'durable';
  if (/^(working|working[- ]memory|ephemeral|short[- ]?term|temporary)$/.test(s)) return 'working';
  return undefined;
}

function tagOf(s: string): string {
  return s.replace(/^#/, '').trim().toLowerCase().replace(/\s+/g, '-');
}

/** Checks one raw beat; returns the normalised beat or why it was dropped. */
export function validateBeat(raw: unknown, opts: ValidateOptions): Beat | string {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'not an object';
  const r = raw as Record<string, unknown>;
  const typeRaw = asString(r.type);
  if (!typeRaw) return 'missing type';
  const type = normaliseType(typeRaw, opts.types);
  if (!type) return `type "${typeRaw}" is not in the vault's vocabulary (${opts.types.join(', ')})`;
  const title = asString(r.title)?.replace(/\s+/g, ' ');
  if (!title) return 'missing title';
  if (title.length > 150) return 'title longer than 150 characters';
  const summary = asString(r.summary)?.replace(/\s+/g, ' ');
  if (!summary) return 'missing summary';
  const body = asString(r.body) ?? summary;
  const scopeRaw = asString(r.scope)?.toLowerCase() ?? 'project';
  if (scopeRaw !== 'project' && scopeRaw !== 'general') return `scope "${scopeRaw}" is neither project nor general`;
  const durability = normaliseDurability(r);
  if (!durability) return 'durability is neither durable nor working';
  const turns = asTurnList(r.turns ?? r.turn ?? r.source_turns);
  if (!turns || turns.length === 0) return 'cites no turns';
  const quote = asString(r.quote ?? r.evidence);
  if (!quote) return 'missing quote';
  let confidence = typeof r.confidence === 'number' ? r.confidence : Number(r.confidence ?? 0.7);
  if (!Number.isFinite(confidence)) confidence = 0.7;
  confidence = Math.min(1, Math.max(0, confidence));
  return {
    type,
    title,
    summary,
    body,
    scope: scopeRaw,
    durability,
    tags: [...new Set(asStringList(r.tags).map(tagOf).filter((t) => /^[\p{L}\p{N}_/-]+$/u.test(t)))],
    related: asStringList(r.related).map((s) => s.replace(/^\[\[|\]\]$/g, '').split('|')[0].trim()).filter(Boolean),
    confidence,
    turns,
    quote,
  };
}

/** Validates a parsed reply (`{beats: [...]}` or a bare array). */
export function validateReply(value: unknown, opts: ValidateOptions): ValidationResult {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as Record<string, unknown>).beats : undefined;
  if (!Array.isArray(list)) return { beats: [], rejected: [{ index: -1, reason: 'reply has no "beats" array' }] };
  const beats: Beat[] = [];
  const rejected: Rejection[] = [];
  list.forEach((raw, index) => {
    const r = validateBeat(raw, opts);
    if (typeof r === 'string') rejected.push({ index, reason: r, title: asString((raw as Record<string, unknown> | null)?.title) });
    else beats.push(r);
  });
  return { beats, rejected };
}
