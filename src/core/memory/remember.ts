// Files text given by an agent or the user as a note (engram_source: manual), through the note layer's one writer
// (file names, key order, collision rules). The same text twice is one note: its engram_id is derived from the text.
import { EngramError } from '../errors.js';
import { stableId } from '../hash.js';
import type { VaultPort } from '../ports.js';
import { DEFAULT_FOLDERS, routeFolder, type Folders } from '../note/route.js';
import { loadVocabulary } from '../note/vocabulary.js';
import { writeBeatNote } from '../note/write-beat.js';
import { phraseTitle } from '../note/title.js';

export interface RememberInput {
  text: string;
  title?: string;
  type?: string;
  project?: string;
  scope?: 'project' | 'general';
  tags?: string[];
}

export interface RememberResult {
  path: string;
  /** True when this text was already remembered: nothing was written. */
  existed: boolean;
}

/** The first line of a text, without Markdown heading marks, as a whole phrase under `max` characters (note/title.ts). */
export function titleFromText(text: string, max = 80): string {
  const first = (text.split(/\r?\n/).find((l) => l.trim()) ?? '').replace(/^#+\s*/, '').replace(/\s+/g, ' ').trim();
  return first.length < max ? first : phraseTitle(first, max - 1) || first.slice(0, max - 1);
}

/** The engram_id of remembered text: the same words (whitespace aside) in the same project are the same note. */
export function rememberId(text: string, project: string | undefined): string {
  return stableId(['manual', project ?? '', text.replace(/\s+/g, ' ').trim()]);
}

export async function rememberNote(
  vault: VaultPort,
  folders: Pick<Folders, 'inbox' | 'projects'>,
  input: RememberInput,
  now: number,
  existing: (engramId: string) => string | undefined,
): Promise<RememberResult> {
  const body = input.text.replace(/\r\n/g, '\n').trim();
  if (!body) throw new EngramError('usage', 'remember needs some text: it was empty or only whitespace');
  const vocabulary = await loadVocabulary(vault);
  const names = vocabulary.types.map((t) => t.name);
  const type = (input.type ?? 'insight').trim().toLowerCase();
  if (!names.includes(type)) {
    throw new EngramError('usage', `unknown note type "${input.type}"`, `use one of: ${names.join(', ')}${vocabulary.source === 'defaults' ? '' : ' (from ENGRAM.md)'}`);
  }
  const scope = input.scope ?? (input.project ? 'project' : 'general');
  const project = scope === 'project' ? input.project : undefined;
  const engramId = rememberId(body, project);
  const already = existing(engramId);
  if (already) return { path: already, existed: true };
  const path = await writeBeatNote(vault, routeFolder({ scope, project }, { ...DEFAULT_FOLDERS, ...folders }), {
    title: (input.title?.trim() ? titleFromText(input.title) : titleFromText(body)) || 'Note',
    type,
    scope,
    project,
    summary: body.slice(0, 200),
    tags: input.tags,
    created: now,
    engramId,
    engramSource: 'manual',
    body,
  });
  return { path, existed: false };
}
