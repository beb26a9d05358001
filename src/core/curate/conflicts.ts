// Sync conflicts as review proposals. A copy a sync tool left beside a note (note/conflict-copy.ts: kept out of recall)
// is offered with its diff against the note and three proposals, applied like any other (journaled, logged, stale
// refused): keep mine (the note stays; the copy goes to the trash), keep theirs (the copy's text becomes the note; the
// note's text and the copy go to the trash), merge both (every line of both, the note's order first; both texts go to
// the trash). Nothing is deleted: what loses is in the vault's trash.
import { diffLines } from '../diff';
import { sha256Hex } from '../hash';
import { conflictCopy, possibleCopy, sameNoteVersions } from '../note/conflict-copy';
import { findFrontmatter, parseNote } from '../note/frontmatter';
import { editFrontmatter, type FrontmatterValue } from '../note/frontmatter-edit';
import type { VaultPort } from '../ports';
import { readOrNull } from './apply';
import { wikilink } from './note-text';
import { makeProposal, type Proposal, type ProposalDraft } from './proposals';

export type ConflictChoice = 'mine' | 'theirs' | 'merge';

export interface SyncConflict {
  /** The copy's vault path. */
  path: string;
  /** The note it is a copy of. */
  original: string;
  tool: string;
  /** The note's text now (null: the note is gone, the copy is the only version). */
  note: string | null;
  copy: string;
  /** The proposals, by choice: `mine` and `merge` only while the note exists. */
  proposals: Partial<Record<ConflictChoice, Proposal>>;
}

/** Every sync conflict in the vault: copies named as only sync tools name them, and near-identical `Note 2.md`-style ones. */
export async function findConflicts(vault: VaultPort): Promise<Array<Omit<SyncConflict, 'proposals'>>> {
  const out: Array<Omit<SyncConflict, 'proposals'>> = [];
  for (const path of await vault.listConflictCopies()) {
    const c = conflictCopy(path);
    const copy = c ? await readOrNull(vault, path) : null;
    if (c && copy !== null) out.push({ ...c, note: await readOrNull(vault, c.original), copy });
  }
  const listed = new Set((await vault.list()).map((f) => f.path));
  for (const path of listed) {
    const c = possibleCopy(path);
    if (!c || !listed.has(c.original)) continue;
    const [copy, note] = [await readOrNull(vault, path), await readOrNull(vault, c.original)];
    if (copy !== null && note !== null && sameNoteVersions(note, copy)) out.push({ ...c, note, copy });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function splitNote(text: string): { front: string; body: string } {
  const fm = findFrontmatter(text);
  const at = fm && 'bodyStart' in fm ? fm.bodyStart : 0;
  return { front: text.slice(0, at), body: text.slice(at) };
}

/** Every line of both texts, each once where they agree, in the note's order (the copy's lines after the note's where they differ). */
function unionLines(a: string, b: string): string {
  const lines = diffLines(a.replace(/\n$/, ''), b.replace(/\n$/, '')).map((l) => l.text);
  return `${lines.join('\n')}\n`;
}

/**
 * Both versions of a note in one, losing no line: the bodies line by line (lines in both once, lines only in either
 * kept); the frontmatter is the note's, with the keys only the copy has added and lists joined (a key both give a
 * different single value keeps the note's; the copy's stays readable in the trash).
 */
export function mergeVersions(note: string, copy: string, where = 'note'): string {
  const [n, c] = [splitNote(note), splitNote(copy)];
  if (!c.front || n.front === c.front) return `${n.front}${unionLines(n.body, c.body)}`;
  const [nd, cd] = [parseNote(note).data, parseNote(copy).data];
  if (!n.front || !nd || !cd) return unionLines(note, copy);
  const set: Record<string, FrontmatterValue> = {};
  for (const [k, v] of Object.entries(cd)) {
    if (v === null || v === undefined) continue;
    const mine = nd[k];
    if (mine === undefined || mine === null) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) set[k] = v;
    } else if (Array.isArray(mine) && Array.isArray(v) && (mine as unknown[]).concat(v as unknown[]).every((x) => typeof x === 'string')) {
      const joined = [...new Set((mine as string[]).concat(v as string[]))];
      if (joined.length !== mine.length) set[k] = joined;
    }
  }
  try {
    const front = splitNote(editFrontmatter(note, { set }, where).text).front;
    return `${front}${unionLines(n.body, c.body)}`;
  } catch {
    return unionLines(note, copy);
  }
}

/** The proposals for one conflict (stored by the caller), each made from both files as they are now. */
export function conflictProposals(c: Omit<SyncConflict, 'proposals'>, now: number, days: number): Partial<Record<ConflictChoice, Proposal>> {
  const sources = [...(c.note !== null ? [{ path: c.original, hash: sha256Hex(c.note) }] : []), { path: c.path, hash: sha256Hex(c.copy) }];
  const name = wikilink(c.original);
  const base = { family: 'review' as const, kind: 'resolve' as const, sources, moves: [], redirect: null, linkRewrites: [], backend: c.tool };
  const draft = (title: string, reason: string, rest: Pick<ProposalDraft, 'writes' | 'trash'>): Proposal => makeProposal({ ...base, title, reason, ...rest }, now, days);
  const why = `${c.tool} left ${c.path} beside ${c.original}: two versions of one note`;
  if (c.note === null) {
    return { theirs: draft(`resolve the sync conflict of ${name}: keep theirs (the copy becomes the note)`, `${why}; the note itself is gone`, { writes: [{ path: c.original, text: c.copy }], trash: [c.path] }) };
  }
  const out: Partial<Record<ConflictChoice, Proposal>> = {
    mine: draft(`resolve the sync conflict of ${name}: keep mine (the copy goes to the trash)`, why, { writes: [], trash: [c.path] }),
    theirs: draft(`resolve the sync conflict of ${name}: keep theirs (the copy's text replaces the note; the note's goes to the trash)`, why, { writes: [{ path: c.original, text: c.copy, replaces: true }], trash: [c.original, c.path] }),
  };
  const merged = mergeVersions(c.note, c.copy, c.original);
  if (merged !== c.note) out.merge = draft(`resolve the sync conflict of ${name}: merge both (every line of both versions)`, why, { writes: [{ path: c.original, text: merged, replaces: true }], trash: [c.original, c.path] });
  return out;
}
