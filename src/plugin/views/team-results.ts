// The team's notes among the search pane's results (docs/team.md "Recall"): labelled as the team's, with the team,
// project and author, and a button that copies the note into the vault's inbox (a new note, marked as not the user's
// words until they make it theirs).
import type { TeamHit } from '../../core/team/store';
import { teamLabel } from '../../core/team/recall';

/** One team result in `parent`; `copy` is called when the user asks for the note in their vault. */
export function renderTeamResult(parent: HTMLElement, hit: TeamHit, index: number, copy: (hit: TeamHit, button: HTMLButtonElement) => void): HTMLElement {
  const item = parent.createDiv({ cls: 'engram-search-result engram-search-team', attr: { role: 'option', tabindex: '0', 'data-team-id': hit.id, 'data-index': String(index) } });
  const title = item.createDiv({ cls: 'engram-search-result-title', text: hit.title });
  title.createSpan({ cls: 'engram-badge engram-badge-team', text: 'Team', attr: { title: `Shared by ${hit.author} in the team store; not in this vault` } });
  item.createDiv({ cls: 'engram-search-result-meta', text: [teamLabel(hit), hit.heading].filter(Boolean).join(' · ') });
  if (hit.snippet) item.createDiv({ cls: 'engram-search-result-snippet', text: hit.snippet });
  const button = item.createEl('button', { cls: 'engram-search-team-copy', text: 'Copy into vault', attr: { 'aria-label': `Copy ${hit.title} into this vault` } });
  button.addEventListener('click', (e) => {
    e.stopPropagation();
    copy(hit, button);
  });
  return item;
}
