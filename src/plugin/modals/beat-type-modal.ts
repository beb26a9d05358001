// Files an editor selection as a memory: shows the text, asks for its type (the vault's vocabulary) and an optional
// title, and resolves with them on "File as memory", or null when the user closes it.
import { Modal, Setting, type App, type DropdownComponent, type TextComponent } from 'obsidian';

export interface BeatChoice {
  type: string;
  title?: string;
}

export class BeatTypeModal extends Modal {
  private decided = false;

  constructor(
    app: App,
    private readonly text: string,
    private readonly types: string[],
    private readonly done: (choice: BeatChoice | null) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.modalEl.addClass('engram-beat-modal');
    this.titleEl.setText('File selection as memory');
    const { contentEl } = this;
    contentEl.empty();
    contentEl.createEl('blockquote', { cls: 'engram-beat-text', text: this.text.length > 600 ? `${this.text.slice(0, 600)}…` : this.text });
    let type!: DropdownComponent;
    let title!: TextComponent;
    new Setting(contentEl).setName('Type').addDropdown((d) => {
      for (const t of this.types) d.addOption(t, t);
      type = d;
    });
    new Setting(contentEl).setName('Title').setDesc('Leave empty to use the first line.').addText((t) => (title = t));
    const buttons = contentEl.createDiv({ cls: 'modal-button-container' });
    buttons.createEl('button', { cls: 'mod-cta engram-beat-file', text: 'File as memory' }).addEventListener('click', () => {
      const chosenTitle = title.getValue().trim();
      this.decide({ type: type.getValue() || (this.types[0] ?? 'insight'), ...(chosenTitle ? { title: chosenTitle } : {}) });
    });
    buttons.createEl('button', { text: 'Cancel' }).addEventListener('click', () => this.decide(null));
  }

  private decide(choice: BeatChoice | null): void {
    if (this.decided) return;
    this.decided = true;
    this.done(choice);
    this.close();
  }

  onClose(): void {
    this.contentEl.empty();
    this.decide(null);
  }
}

export function chooseBeatType(app: App, text: string, types: string[]): Promise<BeatChoice | null> {
  return new Promise((resolve) => new BeatTypeModal(app, text, types, resolve).open());
}
