// Possible duplicates recorded by extraction (`proposals/dup-<id>.json`: a new note that looks like an existing one)
// become merge proposals when the user applies them, checked against the hashes extraction recorded.
import { EngramError } from '../errors';
import { readFormat } from '../format-version';
import type { StateStore } from '../extract/state-store';
import type { NoteCatalog } from './catalog';
import { planLinkRewrites } from './apply';
import { expiredProposal, makeProposal, pastExpiry, staleProposal, type Proposal } from './proposals';
import { mergeDraft } from './restructure';
import { checkCuratable } from './chosen';
import type { CurateSettings } from './settings';

export interface DuplicateRecord {
  id: string;
  reason?: string;
  score?: number;
  expires?: string;
  notes: Array<{ path: string; hash: string | null; role?: string }>;
}

export function isDuplicateId(id: string): boolean {
  return /^dup-[A-Za-z0-9_-]{1,80}$/.test(id);
}

/** The record extraction writes (src/core/extract/write-beats.ts `recordProposal`). */
const DUPLICATE_RECORD_FORMAT = 1;

function parseRecord(text: string | undefined, id: string): DuplicateRecord | null {
  const read = readFormat(
    {
      name: `possible-duplicate record ${id}`,
      current: DUPLICATE_RECORD_FORMAT,
      validate: (r) => {
        const notes = r.notes as DuplicateRecord['notes'] | undefined;
        if (!Array.isArray(notes) || notes.some((n) => typeof n?.path !== 'string')) throw new EngramError('format-version', `possible-duplicate record ${id} is damaged`);
        return { id, reason: r.reason as string | undefined, score: r.score as number | undefined, expires: r.expires as string | undefined, notes };
      },
    },
    text,
  );
  return read?.data ?? null;
}

/** Possible duplicates waiting in the proposals folder (not expired). */
export async function listDuplicates(state: StateStore, dir: string, now: number): Promise<DuplicateRecord[]> {
  const out: DuplicateRecord[] = [];
  for (const f of await state.list(dir)) {
    const id = f.replace(/\.json$/, '');
    if (!f.endsWith('.json') || !isDuplicateId(id)) continue;
    try {
      const r = parseRecord(await state.read(`${dir}/${f}`), id);
      if (r && !pastExpiry(r.expires, now)) out.push(r);
    } catch {
      // Damaged records are reported when applied by id.
    }
  }
  return out;
}

/** The merge proposal for a possible duplicate; refused when either note changed since extraction saw it. */
export async function duplicateAsMerge(state: StateStore, dir: string, id: string, catalog: NoteCatalog, settings: CurateSettings, now: number): Promise<Proposal> {
  const r = parseRecord(await state.read(`${dir}/${id}.json`), id);
  if (!r) throw new EngramError('not-found', `no proposal with id ${id}`, 'run `engram restructure` to list current proposals');
  if (r.expires && pastExpiry(r.expires, now)) throw expiredProposal(id, r.expires);
  const members: string[] = [];
  for (const n of r.notes) {
    if (catalog.get(n.path) && n.hash !== null && catalog.hash(n.path) !== n.hash) throw staleProposal(n.path, 'changed');
    checkCuratable(catalog, n.path);
    members.push(n.path);
  }
  if (new Set(members).size < 2) throw new EngramError('refused', `proposal ${id} does not name two notes`);
  const draft = mergeDraft(catalog, { members: [...new Set(members)].sort(), minScore: r.score ?? 0, shared: [] });
  draft.reason = `possible duplicate found by extraction (${id}${r.reason ? `: ${r.reason}` : ''})`;
  draft.linkRewrites = planLinkRewrites(catalog, draft).map(({ path, edits }) => ({ path, edits }));
  return makeProposal(draft, now, settings.proposalDays);
}
