// Shows a merge or split proposal before anything is written: every note it would write, word for word, the notes it
// would move to the trash and the notes whose links it would rewrite. Resolves true only on the user's "Apply".
import { Component, MarkdownRenderer, Modal, type App } from 'obsidian';
import { renderNotePreview } from '../views/note-preview';
import type { Proposal } from '../../core/curate/proposals';

/** Longer texts are cut in the preview (the whole text is still what applying writes). */
export const PREVIEW_CHARS = 20_000;

export class ProposalPreviewModal extends Modal {
  private decided = false;
  /** Owns what the Markdown renderer draws in the previews (unloaded when the modal closes). */
  private readonly rendered = new Component();

  constructor(
    app: App,
    private readonly proposal: Proposal,
    private readonly verb: string,
    private readonly done: (apply: boolean) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const p = this.proposal;
    this.modalEl.addClass('engram-preview-modal');
    this.titleEl.setText(`${this.verb[0].toUpperCase()}${this.verb.slice(1)}: preview`);
    const { contentEl } = this;
    contentEl.empty();
    this.rendered.load();
    contentEl.createEl('p', { cls: 'engram-preview-reason', text: p.reason });
    for (const w of p.writes) {
      const section = contentEl.createDiv({ cls: 'engram-preview-write' });
      section.createEl('h4', { text: `${w.path}${w.replaces || p.sources.some((s) => s.path === w.path) ? ' (rewritten)' : ' (new note)'}` });
      const shown = w.text.length > PREVIEW_CHARS ? `${w.text.slice(0, PREVIEW_CHARS)}\n…` : w.text;
      renderNotePreview(section, shown, w.path, (el, md, path) => void MarkdownRenderer.render(this.app, md, el, path, this.rendered), 'engram-preview-text');
    }
    const written = new Set(p.writes.map((w) => w.path));
    const trashed = p.trash.filter((t) => !written.has(t));
    if (trashed.length > 0) contentEl.createEl('p', { cls: 'engram-preview-trash', text: `Moved to the trash: ${trashed.join(', ')}` });
    const relinked = p.linkRewrites.filter((r) => r.edits.length > 0);
    if (relinked.length > 0) {
      const n = relinked.reduce((sum, r) => sum + r.edits.length, 0);
      contentEl.createEl('p', { cls: 'engram-preview-links', text: `${n} ${n === 1 ? 'link' : 'links'} rewritten in ${relinked.map((r) => r.path).join(', ')}` });
    }
    const buttons = contentEl.createDiv({ cls: 'modal-button-container' });
    const apply = buttons.createEl('button', { cls: 'mod-cta engram-preview-apply', text: 'Apply' });
    apply.addEventListener('click', () => this.decide(true));
    const cancel = buttons.createEl('button', { cls: 'engram-preview-cancel', text: 'Cancel' });
    cancel.addEventListener('click', () => this.decide(false));
  }

  private decide(apply: boolean): void {
    if (this.decided) return;
    this.decided = true;
    this.done(apply);
    this.close();
  }

  onClose(): void {
    this.rendered.unload();
    this.contentEl.empty();
    this.decide(false);
  }
}

/** Opens the preview; true when the user chose to apply. */
export function confirmProposal(app: App, proposal: Proposal, verb: string): Promise<boolean> {
  return new Promise((resolve) => new ProposalPreviewModal(app, proposal, verb, resolve).open());
}
