// A yes-or-no question before an action the user should agree to first (a download, say): Cancel, or the action.
import { Modal, Setting, type App } from 'obsidian';

/** Asks before anything leaves the computer: the action runs only on the confirm button. */
export class ConfirmModal extends Modal {
  constructor(app: App, private readonly heading: string, private readonly body: string, private readonly confirm: string, private readonly onConfirm: () => Promise<void>) {
    super(app);
  }

  onOpen(): void {
    this.setTitle(this.heading);
    this.contentEl.createEl('p', { text: this.body });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText('Cancel').onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText(this.confirm)
          .setCta()
          .onClick(() => {
            this.close();
            void this.onConfirm();
          }),
      );
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
