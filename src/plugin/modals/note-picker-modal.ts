// Picks the notes to merge: a filter box over the vault's Markdown notes and a checkbox for each; "Preview merge"
// is enabled once two are chosen. Resolves with the chosen paths, or null when the user closes it.
import { Modal, type App } from 'obsidian';

/** Rows drawn at once (a filter narrows a large vault); chosen notes are always shown. */
const MAX_ROWS = 200;

export class NotePickerModal extends Modal {
  private readonly chosen: Set<string>;
  private decided = false;
  private listEl!: HTMLElement;
  private previewButton!: HTMLButtonElement;
  private countEl!: HTMLElement;

  constructor(
    app: App,
    private readonly paths: string[],
    initial: string[],
    private readonly done: (paths: string[] | null) => void,
  ) {
    super(app);
    this.chosen = new Set(initial);
  }

  onOpen(): void {
    this.modalEl.addClass('engram-picker-modal');
    this.titleEl.setText('Merge notes');
    const { contentEl } = this;
    contentEl.empty();
    const filter = contentEl.createEl('input', { cls: 'engram-picker-filter', type: 'search', attr: { placeholder: 'Filter notes', 'aria-label': 'Filter notes' } });
    filter.addEventListener('input', () => this.renderList(filter.value));
    // Enter previews once two notes are chosen (the keyboard's way to the button).
    filter.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && this.chosen.size >= 2) this.decide([...this.chosen]);
    });
    this.listEl = contentEl.createDiv({ cls: 'engram-picker-list' });
    const footer = contentEl.createDiv({ cls: 'modal-button-container' });
    this.countEl = footer.createSpan({ cls: 'engram-picker-count' });
    this.previewButton = footer.createEl('button', { cls: 'mod-cta engram-picker-preview', text: 'Preview merge' });
    this.previewButton.addEventListener('click', () => this.decide([...this.chosen]));
    footer.createEl('button', { text: 'Cancel' }).addEventListener('click', () => this.decide(null));
    this.renderList('');
    filter.focus();
  }

  private renderList(query: string): void {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const matches = this.paths.filter((p) => this.chosen.has(p) || words.every((w) => p.toLowerCase().includes(w)));
    this.listEl.empty();
    for (const path of matches.slice(0, MAX_ROWS)) {
      const row = this.listEl.createEl('label', { cls: 'engram-picker-row' });
      const box = row.createEl('input', { type: 'checkbox' });
      box.checked = this.chosen.has(path);
      const sync = (): void => {
        if (box.checked) this.chosen.add(path);
        else this.chosen.delete(path);
        this.updateFooter();
      };
      // Both: `change` is what browsers send; a click (mouse, or space on the focused box) toggles first, so reading
      // `checked` twice is harmless.
      box.addEventListener('change', sync);
      box.addEventListener('click', sync);
      row.createSpan({ text: path });
    }
    if (matches.length > MAX_ROWS) this.listEl.createDiv({ cls: 'engram-picker-more', text: `${matches.length - MAX_ROWS} more: type to narrow` });
    this.updateFooter();
  }

  private updateFooter(): void {
    this.countEl.setText(`${this.chosen.size} chosen`);
    this.previewButton.disabled = this.chosen.size < 2;
  }

  private decide(paths: string[] | null): void {
    if (this.decided) return;
    this.decided = true;
    this.done(paths);
    this.close();
  }

  onClose(): void {
    this.contentEl.empty();
    this.decide(null);
  }
}

export function pickNotes(app: App, paths: string[], initial: string[]): Promise<string[] | null> {
  return new Promise((resolve) => new NotePickerModal(app, paths, initial, resolve).open());
}
