// Proposals for notes the user picked (the plugin's merge and split commands): the same merge and split drafts as
// restructure's, built for the named notes instead of found ones, stored, and applied by id like any other.
import { EngramError } from '../errors';
import type { NoteCatalog } from './catalog';
import { planLinkRewrites } from './apply';
import { makeProposal, type Proposal, type ProposalDraft } from './proposals';
import { mergeDraft } from './restructure';
import { isoDate } from '../day';
import type { CurateSettings } from './settings';
import { decisionDraft } from './review';
import { outline, splitDraft } from './split';

/** A note curation may rewrite: present, with frontmatter that parses, not locked; else a refusal that says why. */
export function checkCuratable(catalog: NoteCatalog, path: string): void {
  const note = catalog.get(path);
  if (!note) throw new EngramError('refused', `proposal is stale: ${path} was removed or renamed since it was made; nothing was changed`);
  if (!note.meta) throw new EngramError('refused', `${path} has invalid frontmatter; Engram never rewrites such notes`);
  if (note.meta.locked) throw new EngramError('refused', `${path} is locked; curation never touches it`);
}

function finish(catalog: NoteCatalog, draft: ProposalDraft, settings: CurateSettings, now: number): Proposal {
  draft.linkRewrites = planLinkRewrites(catalog, draft).map(({ path, edits }) => ({ path, edits }));
  return makeProposal(draft, now, settings.proposalDays);
}

/** Merges the chosen notes into the one most linked (as restructure would); two or more notes. */
export function chosenMerge(catalog: NoteCatalog, paths: string[], settings: CurateSettings, now: number): Proposal {
  const members = [...new Set(paths)].sort();
  for (const p of members) {
    if (!catalog.get(p)) throw new EngramError('not-found', `no note at ${p}`);
    checkCuratable(catalog, p);
  }
  if (members.length < 2) throw new EngramError('usage', 'choose two or more notes to merge');
  const draft = mergeDraft(catalog, { members, minScore: 0, shared: [] });
  draft.reason = `${members.length} notes chosen to merge`;
  return finish(catalog, draft, settings, now);
}

/** Splits one note at its top-level headings: every section with text becomes a note; the original keeps the rest. */
export function chosenSplit(catalog: NoteCatalog, path: string, settings: CurateSettings, now: number): Proposal {
  if (!catalog.get(path)) throw new EngramError('not-found', `no note at ${path}`);
  checkCuratable(catalog, path);
  const draft = splitDraft(catalog, path, 1);
  if (!draft) {
    const n = outline(catalog.get(path)!.text).sections.length;
    throw new EngramError('refused', `${path} has ${n === 0 ? 'no headings' : n === 1 ? 'one top-level section' : 'too few sections with text'}; a split needs two or more sections with text`);
  }
  draft.reason = `chosen to split at its ${draft.writes.length - 1} top-level headings`;
  return finish(catalog, draft, settings, now);
}

/**
 * Extends or deletes working-memory notes the user picked in the review pane, whatever the plan proposed for them: the
 * same review proposal the plan would make (logged, trash for delete), built for the named notes.
 */
export function chosenReview(catalog: NoteCatalog, paths: string[], action: 'extend' | 'delete', settings: CurateSettings, now: number): Proposal {
  const notes = [...new Set(paths)].sort();
  if (!notes.length) throw new EngramError('usage', `choose a note to ${action}`);
  for (const p of notes) {
    if (!catalog.get(p)) throw new EngramError('not-found', `no note at ${p}`);
    checkCuratable(catalog, p);
  }
  const draft = decisionDraft(catalog, settings, { action, notes, reason: `chosen to ${action} in the review` }, isoDate(now), 'user');
  if (!draft) throw new EngramError('refused', `${notes.join(', ')} cannot be ${action === 'extend' ? 'extended' : 'deleted'}: its frontmatter could not be edited`);
  return finish(catalog, draft, settings, now);
}
