// The palette commands in the page: the real registerCommands on a mocked plugin over the real engine, with Obsidian's
// modals shown in the document until they close (the mocks' `open` closes them at once). The test runs a command by id
// and clicks through the picker and the preview as a user would.
import { Modal, Plugin, type TFile } from 'obsidian';
import { registerCommands } from '../../../src/plugin/commands';
import type { PaneContext } from '../../../src/plugin/views/api';
import { run, world } from './page-kit';

declare global {
  interface Window {
    /** Runs a command on the open note, as the palette does. */
    engramCommand(id: string): void;
  }
}

const NOW = Date.parse('2026-03-10T12:00:00Z');
const section = (name: string) => `## ${name}\n\n${`What to know about ${name.toLowerCase()}, in more words than fit on one line. `.repeat(3)}\n`;
const FILES: Record<string, string> = {
  'Notes/Deploy.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root.\n',
  'Notes/Release.md': '---\ntags: [release]\n---\nTag the release after the deploy.\n',
  'Notes/Index.md': 'See [[Deploy]] and [[Release]].\n',
  'Notes/Guide.md': `---\ntags: [guide]\n---\nOpening words.\n\n${section('Setup')}\n${section('Usage')}`,
};

class PagePlugin extends Plugin {}

run(async () => {
  const w = await world(FILES, { now: NOW });
  Modal.prototype.open = function (this: Modal) {
    this.containerEl.addClass('modal-container');
    this.modalEl.addClass('modal');
    document.body.appendChild(this.containerEl);
    this.onOpen();
  };
  Modal.prototype.close = function (this: Modal) {
    this.containerEl.remove();
    this.onClose();
  };
  // The app's vault gives the commands their files; the texts are the engine's (in Obsidian, both are its vault).
  await w.app.vault.createFolder('Notes');
  for (const path of Object.keys(FILES)) await w.app.vault.create(path, '');
  const plugin = new PagePlugin(w.app, { id: 'engram', name: 'Engram', version: '0.0.0', minAppVersion: '1.6.6', author: '', description: '' });
  const ctx: PaneContext = { api: () => w.api, onChange: () => () => {} };
  registerCommands(plugin, ctx, { open: () => Promise.resolve() });
  const commands = (plugin as unknown as { commands__: Map<string, { callback?: () => void; checkCallback?: (checking: boolean) => boolean }> }).commands__;
  window.engramCommand = (id) => {
    const c = commands.get(id)!;
    if (c.checkCallback) c.checkCallback(false);
    else c.callback!();
  };
  const leaf = w.app.workspace.getLeaf(true);
  (window as unknown as { engramOpen(path: string): Promise<void> }).engramOpen = async (path) => {
    await leaf.openFile(w.app.vault.getAbstractFileByPath(path) as TFile);
    w.app.workspace.setActiveLeaf(leaf);
  };
  window.engramPage.ready = true;
});
