// The review pane's box of notes holding text addressed to an AI (issue 32): what was found and where, with Open and
// Mark as mine (`engram_trust: user`, written only on that click).
import type { FlaggedNote } from '../../core/engine';
import { DIRECTIVE_KINDS } from '../../core/recall/directives';
import type { EngramApi } from './api';

export class FlaggedSection {
  /** The flagged notes, once read (null: not yet). */
  private notes: FlaggedNote[] | null = null;
  private el?: HTMLElement;

  constructor(private readonly host: { open(path: string): void; say(text: string): void }) {}

  /** Where the box is drawn (the pane redraws its content); drawn at once when the notes are known. */
  attach(el: HTMLElement, api: EngramApi | undefined): void {
    this.el = el;
    if (api) this.draw(api);
  }

  /** Reads the flagged notes and draws them. */
  async load(api: EngramApi): Promise<void> {
    try {
      this.notes = await api.flagged();
    } catch (e) {
      this.notes = null;
      this.host.say(`Could not list the flagged notes: ${(e as Error).message}`);
    }
    this.draw(api);
  }

  /** The flagged notes' box: nothing when there are none. */
  private draw(api: EngramApi): void {
    const box = this.el;
    if (!box) return;
    box.empty();
    const notes = this.notes ?? [];
    if (!notes.length) return;
    const details = box.createEl('details', { cls: 'engram-review-flagged', attr: { open: '' } });
    details.createEl('summary', { cls: 'engram-review-flagged-head', text: `${notes.length} note${notes.length === 1 ? '' : 's'} hold${notes.length === 1 ? 's' : ''} text addressed to an AI` });
    details.createDiv({ cls: 'engram-review-flagged-about', text: 'Never injected into agents\' sessions, and withheld from what they read. If the text is yours (a note about prompt injection, say), mark the note as yours.' });
    for (const n of notes) {
      const row = details.createDiv({ cls: 'engram-review-flagged-item', attr: { 'data-path': n.path } });
      row.createDiv({ cls: 'engram-review-flagged-title', text: n.title });
      row.createDiv({ cls: 'engram-review-flagged-facts', text: `${n.path}${n.trust === 'outside' ? ' · outside text' : ''} · ${n.whole ? 'never injected' : 'these passages are never injected; the rest is'}` });
      for (const f of n.found) {
        const where = f.heading === undefined ? 'frontmatter or the note as a whole' : f.heading ? `§ ${f.heading}` : 'the note\'s text';
        row.createDiv({ cls: 'engram-review-flagged-why', text: `${where}, ${DIRECTIVE_KINDS[f.kind]}: “${f.excerpt}”` });
      }
      const actions = row.createDiv({ cls: 'engram-review-buttons' });
      actions.createEl('button', { text: 'Open note', cls: 'engram-review-flagged-open' }).addEventListener('click', () => this.host.open(n.path));
      const mine = actions.createEl('button', { text: 'Mark as mine', cls: 'engram-review-flagged-trust', attr: { title: 'Writes engram_trust: user in its frontmatter: injected and shown as written' } });
      mine.addEventListener('click', () => void this.markMine(api, n, mine));
    }
  }

  /** Writes `engram_trust: user` into the note's frontmatter (the user's click, nothing else writes it), then lists again. */
  private async markMine(api: EngramApi, n: FlaggedNote, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await api.setFrontmatter(n.path, { engram_trust: 'user' });
      this.host.say(`Marked as yours: ${n.title} (engram_trust: user). Remove that line to flag it again.`);
      await this.load(api);
    } catch (e) {
      button.disabled = false;
      this.host.say(`Could not mark ${n.title}: ${(e as Error).message}`);
    }
  }
}
