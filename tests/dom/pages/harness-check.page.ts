// The harness's own check: a minimal pane over the real engine, to show a pane test how to get from a page to a click.
import { ItemView, type WorkspaceLeaf } from 'obsidian';
import type { EngramApi } from '../../../src/plugin/views/api';
import { mount, run, world } from './page-kit';

class SearchCountView extends ItemView {
  constructor(leaf: WorkspaceLeaf, private readonly api: EngramApi) {
    super(leaf);
  }
  getViewType(): string {
    return 'engram-harness-check';
  }
  getDisplayText(): string {
    return 'Harness check';
  }
  async onOpen(): Promise<void> {
    const el = this.contentEl.createDiv({ cls: 'engram-harness-check' });
    const button = el.createEl('button', { text: 'Search pnpm' });
    const out = el.createDiv({ cls: 'engram-harness-out' });
    button.addEventListener('click', () => {
      void this.api.search('pnpm workspaces').then((a) => out.setText(a.hits.map((h) => h.path).join(', ')));
    });
  }
}

run(async () => {
  const w = await world({ 'Engram/Inbox/Use pnpm workspaces.md': '---\ntype: decision\n---\nWe moved to pnpm workspaces.\n', 'Notes/Other.md': 'Nothing to see.\n' });
  await mount(w, (leaf) => new SearchCountView(leaf, w.api));
});
