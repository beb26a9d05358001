// What the Activity and Dashboard panes share: on open and on every change of hosting, ask the engine for the
// activity record's figures, then draw them (or say why there are none). `rendered` resolves once drawn (tests wait).
import { ItemView, type WorkspaceLeaf } from 'obsidian';
import { errorMessage } from '../../core/errors';
import type { EngramApi, PaneContext } from './api';

export abstract class RecordPane<T> extends ItemView {
  protected data: T | null = null;
  protected problem = '';
  /** Resolves when the pane has loaded and drawn its figures. */
  rendered: Promise<void> = Promise.resolve();

  constructor(
    leaf: WorkspaceLeaf,
    protected readonly ctx: PaneContext,
    private readonly cls: string,
  ) {
    super(leaf);
  }

  /** The figures for what the pane shows now (its span). */
  protected abstract fetchFigures(api: EngramApi): Promise<T>;
  /** Draws `data` (or `problem`); `hosted`: whether the engine runs here. */
  protected abstract draw(hosted: boolean): void;

  async onOpen(): Promise<void> {
    this.contentEl.addClass(this.cls);
    this.register(this.ctx.onChange(() => void this.refresh()));
    await this.refresh();
  }

  refresh(): Promise<void> {
    this.rendered = this.fetchAndDraw();
    return this.rendered;
  }

  private async fetchAndDraw(): Promise<void> {
    const api = this.ctx.api();
    this.problem = '';
    if (api) {
      try {
        this.data = await this.fetchFigures(api);
      } catch (e) {
        this.data = null;
        this.problem = `Could not read the activity record: ${errorMessage(e)}`;
      }
    } else this.data = null;
    // Drawn off the page, then put back: one style and layout pass for the whole pane, not one per chart or row.
    const el = this.contentEl;
    const parent = el.parentElement;
    const next = el.nextSibling;
    el.remove();
    try {
      this.draw(api !== undefined);
    } finally {
      if (parent) parent.insertBefore(el, next);
    }
  }
}
