// The review pane's team box (docs/team.md "Promotion"): the notes an agent proposed for the team store, each sent
// only when the person approves it here (checked again for secrets), or dismissed; and the promotions the store
// refused because another member's note has the title, shown until they are settled (never overwritten).
import type { TeamPane } from '../../core/team/recall';
import { errorMessage } from '../../core/errors';

/** Draws the box into `box` (nothing when nothing waits); redraws itself after each decision. */
export async function drawTeamBox(box: HTMLElement, team: TeamPane, open: (path: string) => void): Promise<void> {
  let pending: Awaited<ReturnType<TeamPane['pending']>>;
  try {
    pending = await team.pending();
  } catch (e) {
    box.empty();
    box.createDiv({ cls: 'engram-review-problem', text: `Could not read what waits for the team: ${errorMessage(e)}` });
    return;
  }
  box.empty();
  const { proposals, conflicts } = pending;
  if (!proposals.length && !conflicts.length) return;
  const details = box.createEl('details', { cls: 'engram-review-team', attr: { open: '' } });
  details.createEl('summary', { cls: 'engram-review-team-head', text: `For the team: ${proposals.length} proposed, ${conflicts.length} in conflict` });
  details.createDiv({ cls: 'engram-review-team-about', text: 'Nothing leaves your vault until you approve it; the note is checked for secrets again as it is sent.' });
  for (const p of proposals) {
    const row = details.createDiv({ cls: 'engram-review-team-item', attr: { 'data-path': p.path } });
    const title = row.createEl('a', { cls: 'engram-review-team-title', text: p.path });
    title.addEventListener('click', () => open(p.path));
    row.createDiv({ cls: 'engram-review-team-why', text: `${p.why ? `${p.why} · ` : ''}proposed by ${p.by}, ${p.at.slice(0, 16).replace('T', ' ')}` });
    const buttons = row.createDiv({ cls: 'engram-review-buttons' });
    const approve = buttons.createEl('button', { cls: 'mod-cta engram-review-team-approve', text: 'Send to the team' });
    const dismiss = buttons.createEl('button', { cls: 'engram-review-team-dismiss', text: 'Keep it personal' });
    const outcome = row.createDiv({ cls: 'engram-review-team-outcome', attr: { role: 'status' } });
    const decide = async (act: () => Promise<string>): Promise<void> => {
      approve.disabled = dismiss.disabled = true;
      try {
        outcome.setText(await act());
        window.setTimeout(() => void drawTeamBox(box, team, open), 1500);
      } catch (e) {
        outcome.setText(`Not sent: ${errorMessage(e)}`);
        approve.disabled = dismiss.disabled = false;
      }
    };
    approve.addEventListener('click', () => void decide(() => team.approve(p.path)));
    dismiss.addEventListener('click', () => void decide(async () => (await team.dismiss(p.path), 'Kept in your vault only.')));
  }
  for (const c of conflicts) {
    const row = details.createDiv({ cls: 'engram-review-team-item engram-review-team-conflict', attr: { 'data-path': c.path } });
    const title = row.createEl('a', { cls: 'engram-review-team-title', text: c.path });
    title.addEventListener('click', () => open(c.path));
    row.createDiv({ cls: 'engram-review-team-why', text: `Not sent: ${c.author} shares a note titled "${c.title}" (team note ${c.id}). Rename yours and send it again, or settle it with them; theirs is never overwritten.` });
  }
}
