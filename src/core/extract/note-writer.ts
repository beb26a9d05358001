// Turns a validated beat into a note: routing (durable → inbox or project folder, working memory → the
// working-memory folder with review_after), a file name from the title, DESIGN's frontmatter, and provenance.
import { stringify } from 'yaml';
import type { SessionMeta } from '../transcript/types.js';
import type { Beat } from './beat.js';
import { extensionMarker } from './vault-catalog.js';

export interface FolderConfig {
  inbox: string;
  projects: string;
  workingMemory: string;
}

export const DEFAULT_FOLDERS: FolderConfig = { inbox: 'Engram/Inbox', projects: 'Engram/Projects', workingMemory: 'Engram/Working memory' };
export const DEFAULT_REVIEW_DAYS = 28;

export type EngramSourceKind = 'hook-extraction' | 'manual' | 'import-claude' | 'import-chatgpt' | 'import-codex';

export interface Provenance {
  engramId: string;
  source: EngramSourceKind;
  session: SessionMeta;
  windowRange: [number, number];
  backend: string;
  model: string;
}

/** A string safe as a file or folder name on every OS and in a wikilink. */
export function safeName(name: string, max = 100): string {
  const cleaned = name
    .replace(/[\\/:*?"<>|#^[\]]/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .replace(/[. ]+$/, '');
  const cut = cleaned.length > max ? cleaned.slice(0, max).replace(/\s+\S*$/, '') || cleaned.slice(0, max) : cleaned;
  return cut || 'Untitled';
}

/** Folder for a beat: the routing rule of DESIGN's capture path. */
export function routeFolder(beat: Beat, project: string | undefined, folders: FolderConfig = DEFAULT_FOLDERS): string {
  if (beat.durability === 'working') return folders.workingMemory;
  if (beat.scope === 'project' && project) return `${folders.projects}/${safeName(project, 60)}`;
  return folders.inbox;
}

/** ISO 8601 with the local offset, e.g. 2026-11-22T11:40:00+01:00. */
export function isoWithOffset(ms: number): string {
  const d = new Date(ms);
  const off = -d.getTimezoneOffset();
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const sign = off >= 0 ? '+' : '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
}

export function isoDate(ms: number): string {
  return isoWithOffset(ms).slice(0, 10);
}

function provenanceFooter(beat: Beat, p: Provenance, now: number): string {
  const quote = beat.quote.replace(/\s+/g, ' ').trim();
  const turns = beat.turns.length === 1 ? `turn ${beat.turns[0]}` : `turns ${beat.turns.join(', ')}`;
  return [
    '> [!quote]- Source',
    `> ${quote.length > 400 ? `${quote.slice(0, 397)}…` : quote}`,
    `> — ${p.session.agent} session \`${p.session.sessionId}\`, ${turns}; extracted ${isoDate(now)} by ${p.backend} (${p.model})`,
  ].join('\n');
}

/** The full text of a new note. `related` must already be filtered to notes that exist. */
export function renderNote(beat: Beat, p: Provenance, related: string[], now: number, reviewDays = DEFAULT_REVIEW_DAYS): string {
  const created = isoWithOffset(now);
  const data: Record<string, unknown> = {
    type: beat.type,
    scope: beat.scope,
    ...(p.session.project ? { project: p.session.project } : {}),
    summary: beat.summary,
    tags: beat.tags,
    related: related.map((t) => `[[${t}]]`),
    created,
    updated: created,
    ...(beat.durability === 'working' ? { review_after: isoDate(now + reviewDays * 86_400_000) } : {}),
    confidence: Math.round(beat.confidence * 100) / 100,
    engram_id: p.engramId,
    engram_source: p.source,
    engram_session: p.session.sessionId,
    engram_agent: p.session.agent,
  };
  const yaml = stringify(data, { lineWidth: 0 }).trimEnd();
  return `---\n${yaml}\n---\n${beat.body.trim()}\n\n${provenanceFooter(beat, p, now)}\n`;
}

/** A dated section appended to an existing Engram note that a beat restates; its marker makes the extension idempotent. */
export function renderExtension(beat: Beat, p: Provenance, now: number): string {
  return `\n## ${isoDate(now)}\n${extensionMarker(p.engramId)}\n${beat.body.trim()}\n\n${provenanceFooter(beat, p, now)}\n`;
}

/** Sets `updated` in an existing note's frontmatter text without touching anything else. */
export function touchUpdated(text: string, now: number): string {
  const m = /^(---\r?\n[\s\S]*?)^updated:[^\n]*$/m.exec(text);
  if (!m || !text.startsWith('---')) return text;
  const end = text.indexOf('\n---', 3);
  if (m.index + m[0].length > end) return text;
  return text.slice(0, m.index) + m[1] + `updated: ${isoWithOffset(now)}` + text.slice(m.index + m[0].length);
}
