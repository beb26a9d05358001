// The "related to this note" pane: for the active note, the notes Engram's index finds closest (meaning with a model,
// words otherwise) and the notes that cite it; it follows the user from note to note.
import { ItemView, type TFile, type WorkspaceLeaf } from 'obsidian';
import type { SearchHit } from '../../core/index/types';
import { errorMessage } from '../../core/errors';
import type { EngramApi, PaneContext } from './api';

export const VIEW_TYPE_RELATED = 'engram-related';

const LIMIT = 10;

export class RelatedView extends ItemView {
  /** The note shown (kept while the user is in a pane with no file, such as this one). */
  private shown: string | null = null;
  /** The newest request: an answer for a note the user has already left is dropped. */
  private seq = 0;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly ctx: PaneContext,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_RELATED;
  }

  getDisplayText(): string {
    return 'Related to this note';
  }

  getIcon(): string {
    return 'links-coming-in';
  }

  async onOpen(): Promise<void> {
    this.contentEl.addClass('engram-related');
    // One listener for every item (the lists are redrawn on each note switch).
    const target = (e: Event): string | undefined => (e.target as HTMLElement).closest<HTMLElement>('.engram-related-item')?.dataset.path;
    this.registerDomEvent(this.contentEl, 'click', (e) => {
      const path = target(e);
      if (path) this.open(path);
    });
    this.registerDomEvent(this.contentEl, 'keydown', (e) => {
      const path = e.key === 'Enter' ? target(e) : undefined;
      if (!path) return;
      e.preventDefault();
      this.open(path);
    });
    this.registerEvent(this.app.workspace.on('active-leaf-change', () => void this.refresh(false)));
    this.registerEvent(this.app.workspace.on('file-open', () => void this.refresh(false)));
    // Hosting started, the index became ready or the vault changed: the same note, answered again.
    this.register(this.ctx.onChange(() => void this.refresh(true)));
    await this.refresh(true);
  }

  async onClose(): Promise<void> {
    this.seq++;
    await Promise.resolve();
  }

  private async refresh(force: boolean): Promise<void> {
    const file = this.app.workspace.getActiveFile();
    const path = file?.path ?? this.shown;
    if (!force && path === this.shown) return;
    const mine = ++this.seq;
    if (!path) return this.message('Open a note to see the notes Engram relates to it.');
    this.shown = path;
    if (file && file.extension !== 'md') return this.message(`Engram indexes Markdown notes; ${file.name} is not one.`, path);
    const api = this.ctx.api();
    if (!api) return this.message('Engram is not running for this vault yet. Related notes appear once the index is ready.', path);
    try {
      const related = await api.related(path, LIMIT);
      if (mine !== this.seq) return;
      this.render(api, path, file, related);
    } catch (e) {
      if (mine !== this.seq) return;
      this.message(`No related notes: ${errorMessage(e)}`, path);
    }
  }

  private header(path: string | null, file?: TFile | null): HTMLElement {
    const root = this.contentEl;
    root.empty();
    const head = root.createDiv({ cls: 'engram-related-head' });
    head.createDiv({ cls: 'engram-related-label', text: 'Related to' });
    if (path) head.createDiv({ cls: 'engram-related-note', text: file?.basename ?? path.replace(/^.*\//, '').replace(/\.md$/i, '') });
    root.dataset.path = path ?? '';
    return root;
  }

  private message(text: string, path: string | null = null): void {
    this.header(path).createDiv({ cls: 'engram-related-empty', text });
  }

  private render(api: EngramApi, path: string, file: TFile | null, related: { similar: SearchHit[]; citing: string[] }): void {
    const root = this.header(path, file);
    const byMeaning = related.similar.some((h) => h.why.some((w) => w.startsWith('meaning')));
    const closest = root.createDiv({ cls: 'engram-related-section engram-related-similar' });
    closest.createEl('h4', { text: byMeaning ? 'Closest in meaning' : 'Closest by shared words' });
    if (related.similar.length === 0) closest.createDiv({ cls: 'engram-related-empty', text: 'No other note shares enough with this one.' });
    for (const hit of related.similar) {
      const item = this.item(closest, hit.path, hit.title);
      const snippet = hit.summary || hit.snippet;
      if (snippet) item.createDiv({ cls: 'engram-related-snippet', text: snippet });
      const why = item.createDiv({ cls: 'engram-related-why' });
      for (const w of hit.why) why.createSpan({ cls: 'engram-related-why-item', text: w });
    }
    const citing = root.createDiv({ cls: 'engram-related-section engram-related-citing' });
    citing.createEl('h4', { text: 'Cited by' });
    if (related.citing.length === 0) citing.createDiv({ cls: 'engram-related-empty', text: 'No note links to this one.' });
    for (const p of related.citing) {
      const meta = api.engine.meta(p);
      const item = this.item(citing, p, meta?.title ?? p);
      const engram = meta?.engramId !== undefined || meta?.engramSource !== undefined;
      item.createDiv({ cls: 'engram-related-snippet', text: [engram ? 'Engram note' : undefined, meta?.type, p].filter(Boolean).join(' · ') });
    }
    // Set last: a test waits for the note it switched to.
    root.dataset.shown = path;
  }

  private item(parent: HTMLElement, path: string, title: string): HTMLElement {
    const item = parent.createDiv({ cls: 'engram-related-item', attr: { tabindex: '0', role: 'link', 'data-path': path } });
    item.createDiv({ cls: 'engram-related-title', text: title });
    return item;
  }

  private open(path: string): void {
    void this.app.workspace.openLinkText(path, '');
  }
}
