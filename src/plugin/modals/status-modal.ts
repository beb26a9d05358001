// Engram's status for this vault, in a modal: who hosts it, how many notes the index holds, how many are due.
import { Modal, type App } from 'obsidian';

export class StatusModal extends Modal {
  constructor(
    app: App,
    private readonly rows: Array<[string, string]>,
  ) {
    super(app);
  }

  onOpen(): void {
    this.modalEl.addClass('engram-status-modal');
    this.titleEl.setText('Engram status');
    const { contentEl } = this;
    contentEl.empty();
    const table = contentEl.createEl('table', { cls: 'engram-status-table' });
    for (const [label, value] of this.rows) {
      const tr = table.createEl('tr');
      tr.createEl('th', { text: label });
      tr.createEl('td', { text: value });
    }
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
