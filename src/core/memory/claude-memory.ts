// Claude Code's own auto memory (`~/.claude/projects/<project>/memory/*.md`, with its `MEMORY.md` index) made visible
// in the vault: each file becomes a note under `<folder>/<project>/` with its provenance, and follows the file's
// changes. Engram only reads those files: it never disables, moves or edits them. The index note carries
// `inject: false`, since Claude Code loads MEMORY.md into every session itself; the topic files it loads only on demand
// may be injected like any note. A note the user edited since Engram wrote it is left alone (and said so).
import { isEngramError } from '../errors.js';
import { sha256Hex, stableId } from '../hash.js';
import type { VaultPort } from '../ports.js';
import type { StateStore } from '../extract/state-store.js';
import { parseNote } from '../note/frontmatter.js';
import { fileStemFromTitle, folderSegment } from '../note/filename.js';
import { isoWithOffset, renderNoteText } from '../note/write-beat.js';

/** One memory file as the host read it. */
export interface MemoryFile {
  /** The project the memory folder belongs to. */
  project: string;
  /** The file's absolute path (the note's provenance; the import's key). */
  source: string;
  /** File name, e.g. `MEMORY.md`, `feedback_testing.md`. */
  name: string;
  text: string;
  /** Epoch ms of the file's last change. */
  mtime: number;
}

export interface MemoryImport {
  source: string;
  path: string;
  action: 'created' | 'updated' | 'unchanged' | 'left alone';
  why?: string;
}

/** What the import wrote for each source (a note changed since is the user's: left alone). */
interface ImportState {
  format: 1;
  files: Record<string, { path: string; sourceHash: string; noteHash: string }>;
}

const INDEX = 'memory.md';

/** The note Engram keeps for one memory file. */
export function memoryNote(f: MemoryFile): { title: string; text: string } {
  const parsed = parseNote(f.text);
  const data = parsed.data ?? {};
  const base = f.name.replace(/\.md$/i, '');
  const isIndex = f.name.toLowerCase() === INDEX;
  const str = (k: string) => {
    const v = data[k];
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const title = isIndex ? `Claude memory index (${f.project})` : (str('name') ?? base.replace(/[_-]+/g, ' '));
  const body = parsed.body.trim();
  const summary = str('description') ?? body.split('\n').find((l) => l.trim() && !l.startsWith('#'))?.trim().slice(0, 200);
  const text = renderNoteText({
    type: 'reference',
    scope: 'project',
    project: f.project,
    summary,
    tags: ['claude-memory'],
    updated: isoWithOffset(f.mtime, 0),
    ...(isIndex ? { inject: false } : {}),
    engram_id: stableId(['claude-memory', f.source]),
    engram_source: 'claude-memory',
  }, `${body}\n\n> [!info]- Claude Code's memory\n> Imported from \`${f.source}\`. Edit it there (or ask Claude Code to); this note follows it.${isIndex ? ' Claude Code loads this index into every session itself, so Engram never injects it.' : ''}`);
  return { title, text };
}

/**
 * Brings the notes up to date with the memory files: new files become notes, changed ones update their note unless the
 * user edited it since. `state`: `<dir>/claude-memory.json` remembers what was written.
 */
export async function importClaudeMemory(o: { vault: VaultPort; state: StateStore; dir: string; folder: string; files: MemoryFile[] }): Promise<MemoryImport[]> {
  const name = `${o.dir}/claude-memory.json`;
  const raw = await o.state.read(name);
  let saved: ImportState = { format: 1, files: {} };
  if (raw) {
    try {
      const parsed = JSON.parse(raw) as ImportState;
      if (parsed.format === 1 && parsed.files && typeof parsed.files === 'object') saved = parsed;
    } catch {
      // A damaged record: start afresh (a note that exists is then only compared, never overwritten blindly).
    }
  }
  const out: MemoryImport[] = [];
  let changed = false;
  for (const f of o.files) {
    const sourceHash = sha256Hex(f.text);
    const known = saved.files[f.source];
    if (known && known.sourceHash === sourceHash && (await o.vault.exists(known.path))) {
      out.push({ source: f.source, path: known.path, action: 'unchanged' });
      continue;
    }
    const note = memoryNote(f);
    const path = known?.path ?? `${o.folder}/${folderSegment(f.project)}/${fileStemFromTitle(note.title)}.md`;
    const current = await o.vault.read(path).then((r) => r.text, (e: unknown) => {
      if (isEngramError(e, 'not-found')) return undefined;
      throw e;
    });
    if (current === undefined) {
      await o.vault.create(path, note.text);
      out.push({ source: f.source, path, action: 'created' });
    } else if (current === note.text) {
      out.push({ source: f.source, path, action: 'unchanged' });
    } else if (!known || sha256Hex(current) !== known.noteHash) {
      // Edited since Engram wrote it (or not Engram's): the user's words win.
      out.push({ source: f.source, path, action: 'left alone', why: 'the note was edited in the vault since it was imported' });
      continue;
    } else {
      await o.vault.writeIfUnchanged(path, current, note.text);
      out.push({ source: f.source, path, action: 'updated' });
    }
    saved.files[f.source] = { path, sourceHash, noteHash: sha256Hex(note.text) };
    changed = true;
  }
  if (changed) await o.state.write(name, JSON.stringify(saved));
  return out;
}
