// Turns a validated beat into a note with the foundation's note layer: routing (note/route), docs/ARCHITECTURE.md's note-format frontmatter in
// its documented order (note/write-beat), and extraction's own part, the provenance footer and dated extensions.
import type { SessionMeta } from '../transcript/types.js';
import type { EngramSource } from '../note/meta.js';
import { routeFolder, DEFAULT_FOLDERS as NOTE_FOLDERS, type Folders } from '../note/route.js';
import { isoDate } from '../day.js';
import { renderBeatNote } from '../note/write-beat.js';
import { PROVENANCE_CALLOUT } from '../note/provenance.js';
import type { Beat } from './beat.js';
import { extensionMarker } from './vault-catalog.js';

/** The folders extraction writes to (the rest of the note layer's folders are not its business). */
export type FolderConfig = Pick<Folders, 'inbox' | 'projects' | 'workingMemory'>;

export const DEFAULT_FOLDERS: FolderConfig = { inbox: NOTE_FOLDERS.inbox, projects: NOTE_FOLDERS.projects, workingMemory: NOTE_FOLDERS.workingMemory };
export const DEFAULT_REVIEW_DAYS = 28;

export type EngramSourceKind = Extract<EngramSource, 'hook-extraction' | 'manual' | 'import-claude' | 'import-chatgpt' | 'import-codex'>;

export interface Provenance {
  engramId: string;
  source: EngramSourceKind;
  session: SessionMeta;
  windowRange: [number, number];
  backend: string;
  model: string;
}

/** Folder for a beat: working memory → its folder; project beats → `Projects/<project>`; the rest → inbox. */
export function beatFolder(beat: Beat, project: string | undefined, folders: FolderConfig = DEFAULT_FOLDERS): string {
  return routeFolder({ scope: beat.scope, project, workingMemory: beat.durability === 'working' }, { ...NOTE_FOLDERS, ...folders });
}


function provenanceFooter(beat: Beat, p: Provenance, now: number): string {
  const quote = beat.quote.replace(/\s+/g, ' ').trim();
  const turns = beat.turns.length === 1 ? `turn ${beat.turns[0]}` : `turns ${beat.turns.join(', ')}`;
  return [
    PROVENANCE_CALLOUT,
    `> ${quote.length > 400 ? `${quote.slice(0, 397)}…` : quote}`,
    `> — ${p.session.agent} session \`${p.session.sessionId}\`, ${turns}; extracted ${isoDate(now)} by ${p.backend} (${p.model})`,
    ...(p.session.projectGuess && p.session.project ? [`> Project \`${p.session.project}\` is a guess: ${p.session.projectGuess}.`] : []),
  ].join('\n');
}

/** The full text of a new note. `related` must already be filtered to notes that exist. */
export function renderNote(beat: Beat, p: Provenance, related: string[], now: number, reviewDays = DEFAULT_REVIEW_DAYS): string {
  return renderBeatNote({
    title: beat.title,
    type: beat.type,
    scope: beat.scope,
    ...(p.session.project ? { project: p.session.project } : {}),
    summary: beat.summary,
    tags: beat.tags,
    related,
    created: now,
    ...(beat.durability === 'working' ? { reviewAfter: isoDate(now + reviewDays * 86_400_000) } : {}),
    confidence: beat.confidence,
    engramId: p.engramId,
    engramSource: p.source,
    engramSession: p.session.sessionId,
    engramAgent: p.session.agent,
    body: `${beat.body.trim()}\n\n${provenanceFooter(beat, p, now)}`,
  });
}

/** A dated section appended to an existing Engram note that a beat restates; its marker makes the extension idempotent. */
export function renderExtension(beat: Beat, p: Provenance, now: number): string {
  return `\n## ${isoDate(now)}\n${extensionMarker(p.engramId)}\n${beat.body.trim()}\n\n${provenanceFooter(beat, p, now)}\n`;
}
