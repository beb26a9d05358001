// The search pane: Engram's one search road (the ranking, filters, date phrases and snippets of MCP recall) as you
// type; each result says why it matched, and a click or Enter opens its note.
import { ItemView, type WorkspaceLeaf } from 'obsidian';
import type { SearchOptions } from '../../core/index/types';
import type { MarkedHit } from '../../core/recall/vet';
import { DEFAULT_TYPES } from '../../core/note/meta';
import { errorMessage } from '../../core/errors';
import type { PaneContext } from './api';
import { fusedItems, type TeamResults } from '../../core/team/recall';
import { renderTeamResult } from './team-results';

export const VIEW_TYPE_SEARCH = 'engram-search';

/** Long enough to skip the searches of a word typed quickly, short enough not to be felt. */
const DEBOUNCE_MS = 40;
const LIMIT = 20;

export interface SearchViewOptions {
  /** Milliseconds between the last keystroke and the search (the bench measures the search itself with 0). */
  debounceMs?: number;
}

export class SearchView extends ItemView {
  private input!: HTMLInputElement;
  private typeSelect!: HTMLSelectElement;
  private projectInput!: HTMLInputElement;
  private workingBox!: HTMLInputElement;
  private statusEl!: HTMLElement;
  private resultsEl!: HTMLElement;
  /** The newest request: an answer to an older one is dropped, never drawn over a newer query. */
  private seq = 0;
  private timer: number | null = null;
  private hits: MarkedHit[] = [];

  constructor(
    leaf: WorkspaceLeaf,
    private readonly ctx: PaneContext,
    private readonly opts: SearchViewOptions = {},
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_SEARCH;
  }

  getDisplayText(): string {
    return 'Engram search';
  }

  getIcon(): string {
    return 'search';
  }

  async onOpen(): Promise<void> {
    this.build();
    // Hosting started or the vault changed: the same query again, at once.
    this.register(this.ctx.onChange(() => this.schedule(0)));
    this.schedule(0);
    await Promise.resolve();
  }

  async onClose(): Promise<void> {
    this.cancelTimer();
    this.seq++;
    await Promise.resolve();
  }

  private build(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass('engram-search');
    const form = root.createDiv({ cls: 'engram-search-form' });
    this.input = form.createEl('input', {
      cls: 'engram-search-input',
      attr: { type: 'search', placeholder: 'Search Engram notes, e.g. "socket bug last week"', 'aria-label': 'Search Engram notes', spellcheck: 'false' },
    });
    const filters = form.createDiv({ cls: 'engram-search-filters' });
    this.typeSelect = filters.createEl('select', { cls: 'dropdown engram-search-type', attr: { 'aria-label': 'Note type' } });
    this.typeSelect.createEl('option', { text: 'Any type', value: '' });
    for (const t of DEFAULT_TYPES) this.typeSelect.createEl('option', { text: t, value: t });
    this.projectInput = filters.createEl('input', { cls: 'engram-search-project', attr: { type: 'text', placeholder: 'Project', 'aria-label': 'Project' } });
    const working = filters.createEl('label', { cls: 'engram-search-working' });
    this.workingBox = working.createEl('input', { attr: { type: 'checkbox' } });
    working.appendText('Working memory only');
    this.statusEl = root.createDiv({ cls: 'engram-search-status', attr: { 'aria-live': 'polite' } });
    this.resultsEl = root.createDiv({ cls: 'engram-search-results', attr: { role: 'listbox', 'aria-label': 'Search results' } });

    this.registerDomEvent(this.input, 'input', () => this.schedule(this.opts.debounceMs ?? DEBOUNCE_MS));
    this.registerDomEvent(this.input, 'keydown', (e) => this.onInputKey(e));
    for (const el of [this.typeSelect, this.workingBox]) this.registerDomEvent(el, 'change', () => this.schedule(0));
    this.registerDomEvent(this.projectInput, 'input', () => this.schedule(this.opts.debounceMs ?? DEBOUNCE_MS));
    // One listener for every result (results are redrawn on each keystroke).
    this.registerDomEvent(this.resultsEl, 'click', (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>('.engram-search-result');
      if (item?.dataset.path) this.open(item.dataset.path);
    });
    this.registerDomEvent(this.resultsEl, 'keydown', (e) => this.onResultKey(e));
  }

  private filters(): SearchOptions {
    const project = this.projectInput.value.trim();
    return {
      limit: LIMIT,
      ...(this.typeSelect.value ? { types: [this.typeSelect.value] } : {}),
      ...(project ? { projects: [project] } : {}),
      ...(this.workingBox.checked ? { durability: 'working' as const } : {}),
    };
  }

  private cancelTimer(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    // A keystroke makes every answer still on its way stale.
    const mine = ++this.seq;
    this.cancelTimer();
    if (delay <= 0) void this.run(mine);
    else this.timer = window.setTimeout(() => void this.run(mine), delay);
  }

  private async run(mine: number): Promise<void> {
    this.timer = null;
    const query = this.input.value.trim();
    const filters = this.filters();
    const api = this.ctx.api();
    if (!api) return this.showMessage('Engram is not running for this vault yet. Search is available once the index is ready.', query);
    const filtered = filters.types !== undefined || filters.projects !== undefined || filters.durability !== undefined;
    if (!query && !filtered) return this.showMessage('Type to search the notes Engram indexes. Phrases such as "last week" or "in March" filter by date.', query);
    try {
      const answer = await api.search(query, filters);
      if (mine !== this.seq) return;
      this.hits = answer.hits;
      this.renderResults(query, answer.hits, answer.notices, answer);
    } catch (e) {
      if (mine !== this.seq) return;
      this.showMessage(`Search failed: ${errorMessage(e)}`, query);
    }
  }

  private showMessage(text: string, query: string): void {
    this.hits = [];
    this.resultsEl.empty();
    this.resultsEl.dataset.query = query;
    this.statusEl.setText(text);
  }

  private renderResults(query: string, hits: MarkedHit[], notices: string[], joined: TeamResults = {}): void {
    const team = joined.team ?? [];
    const count = hits.length === 0 && !team.length ? 'No notes matched' : `${hits.length} ${hits.length === 1 ? 'note' : 'notes'}${team.length ? ` and ${team.length} team ${team.length === 1 ? 'note' : 'notes'}` : ''}`;
    this.statusEl.empty();
    this.statusEl.createSpan({ text: count });
    for (const n of notices) this.statusEl.createSpan({ cls: 'engram-search-notice', text: n });
    this.resultsEl.empty();
    // The vault's hits and the team's, in the order the host fused them (reciprocal rank).
    for (const [i, entry] of fusedItems(hits, joined).entries()) {
      if ('team' in entry) {
        renderTeamResult(this.resultsEl, entry.team, i, (h, button) => void this.copyTeamNote(h.id, button));
        continue;
      }
      const hit = entry.note;
      const item = this.resultsEl.createDiv({ cls: 'engram-search-result', attr: { role: 'option', tabindex: '0', 'data-path': hit.path, 'data-index': String(i) } });
      const title = item.createDiv({ cls: 'engram-search-result-title', text: hit.title });
      // Text nobody in the vault wrote, and text addressed to an AI: found, shown, never injected (why says which).
      if (hit.trust === 'outside') title.createSpan({ cls: 'engram-badge engram-badge-outside', text: 'Outside text', attr: { title: 'Not your words: never injected into agents\' sessions' } });
      if (hit.flagged) title.createSpan({ cls: 'engram-badge engram-badge-flagged', text: 'Addressed to an AI', attr: { title: 'Holds text addressed to an AI: that passage is never injected' } });
      const meta = [hit.type, hit.project, hit.heading, hit.path].filter((x): x is string => !!x);
      item.createDiv({ cls: 'engram-search-result-meta', text: meta.join(' · ') });
      const snippet = hit.snippet || hit.summary;
      if (snippet) item.createDiv({ cls: 'engram-search-result-snippet', text: snippet });
      const why = item.createDiv({ cls: 'engram-search-why', attr: { 'aria-label': 'Why it matched' } });
      for (const w of hit.why) why.createSpan({ cls: 'engram-search-why-item', text: w });
    }
    // Set last: a test (or a bench) waits for the query it typed.
    this.resultsEl.dataset.query = query;
  }

  /** A team note into the vault (a new note in the inbox), then opened. */
  private async copyTeamNote(id: string, button: HTMLButtonElement): Promise<void> {
    const api = this.ctx.api();
    if (!api) return;
    button.disabled = true;
    try {
      const path = await api.copyTeamNote(id);
      button.setText(`Copied to ${path}`);
      this.open(path);
    } catch (e) {
      button.disabled = false;
      button.setText(`Not copied: ${errorMessage(e)}`);
    }
  }

  private open(path: string): void {
    void this.app.workspace.openLinkText(path, '');
  }

  private items(): HTMLElement[] {
    return Array.from(this.resultsEl.querySelectorAll<HTMLElement>('.engram-search-result'));
  }

  private onInputKey(e: KeyboardEvent): void {
    if (e.key === 'ArrowDown') {
      this.items()[0]?.focus();
      e.preventDefault();
    } else if (e.key === 'Enter' && this.hits[0]) {
      this.open(this.hits[0].path);
      e.preventDefault();
    }
  }

  private onResultKey(e: KeyboardEvent): void {
    const items = this.items();
    const at = items.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    if (e.key === 'Enter') {
      // A team result is not in the vault: its button copies it there.
      const path = items[at].dataset.path;
      if (!path) return;
      this.open(path);
    }
    else if (e.key === 'ArrowDown') items[Math.min(at + 1, items.length - 1)].focus();
    else if (e.key === 'ArrowUp') (at === 0 ? this.input : items[at - 1]).focus();
    else return;
    e.preventDefault();
  }
}
