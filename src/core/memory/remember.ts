// Files text given by an agent or the user as a note (engram_source: manual), and soft-deletes notes on request.
import { stringify } from 'yaml';
import { EngramError, isEngramError } from '../errors.js';
import { stableId } from '../hash.js';
import type { VaultPort } from '../ports.js';

export interface RememberInput {
  text: string;
  title?: string;
  type?: string;
  project?: string;
  scope?: 'project' | 'general';
  tags?: string[];
}

export interface MemoryFolders {
  inbox: string;
  projects: string;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what a file name must not contain
const UNSAFE = /[\\/:*?"<>|#^[\]\u0000-\u001f]/g;

/** A file name Obsidian and every OS accept, from the first words of a text. */
export function safeTitle(text: string, max = 80): string {
  const first = text.split(/\r?\n/).find((l) => l.trim()) ?? 'Note';
  let t = first.replace(/^#+\s*/, '').replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > max) t = `${t.slice(0, max).replace(/\s+\S*$/, '')}`;
  t = t.replace(/^\.+/, '').trim();
  return t || 'Note';
}

export function isoWithOffset(ms: number): string {
  const d = new Date(ms);
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const local = new Date(ms + off * 60_000).toISOString().slice(0, 19);
  return `${local}${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

export async function rememberNote(vault: VaultPort, folders: MemoryFolders, input: RememberInput, now: number): Promise<string> {
  const scope = input.scope ?? (input.project ? 'project' : 'general');
  const folder = scope === 'project' && input.project ? `${folders.projects}/${safeTitle(input.project, 60)}` : folders.inbox;
  const title = safeTitle(input.title ?? input.text);
  const created = isoWithOffset(now);
  const summary = input.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  const data: Record<string, unknown> = {
    type: input.type ?? 'insight',
    scope,
    ...(input.project ? { project: input.project } : {}),
    summary,
    tags: input.tags ?? [],
    created,
    updated: created,
    engram_id: stableId(['manual', input.text, now]),
    engram_source: 'manual',
  };
  const text = `---\n${stringify(data, { lineWidth: 0 })}---\n\n${input.text.trim()}\n`;
  for (let n = 1; n < 100; n++) {
    const path = `${folder}/${n === 1 ? title : `${title} ${n}`}.md`;
    try {
      await vault.create(path, text);
      return path;
    } catch (e) {
      if (!isEngramError(e, 'conflict')) throw e;
    }
  }
  throw new EngramError('conflict', `too many notes named "${title}"`);
}
