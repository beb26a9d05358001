// The palette commands (sentence case, no default hotkeys) and the file, files and editor menus. Each shows only
// where it applies (a Markdown note open, a selection of notes) and acts through NoteActions.
import { Notice, TFile, type MarkdownView, type Editor, type MarkdownFileInfo, type Menu, type Plugin, type TAbstractFile } from 'obsidian';
import { errorMessage } from '../core/errors';
import type { PaneContext } from './views/api';
import { VIEW_TYPE_RELATED } from './views/related-view';
import { VIEW_TYPE_RESTRUCTURE } from './views/restructure-view';
import { VIEW_TYPE_REVIEW } from './views/review-view';
import { VIEW_TYPE_SEARCH } from './views/search-view';
import { VIEW_TYPE_DASHBOARD } from './views/dashboard-view';
import { VIEW_TYPE_ACTIVITY } from './views/activity-view';
import { NoteActions } from './note-actions';

/** The panes the commands open (main.ts registers the views; the review and restructure panes' files will export theirs). */
export const PANES = { review: VIEW_TYPE_REVIEW, restructure: VIEW_TYPE_RESTRUCTURE, related: VIEW_TYPE_RELATED, search: VIEW_TYPE_SEARCH, dashboard: VIEW_TYPE_DASHBOARD, activity: VIEW_TYPE_ACTIVITY } as const;

export interface PaneOpener {
  open(viewType: string): Promise<void>;
}

function markdown(file: TAbstractFile | null | undefined): file is TFile {
  return file instanceof TFile && file.extension === 'md';
}

/** Runs an action from a command or menu; what the engine did not foresee is still told, never lost in the console. */
function act(p: Promise<void>): void {
  p.catch((e: unknown) => new Notice(`Engram failed: ${errorMessage(e)}`));
}

/** What the Engram plugin tells about itself (EngramPlugin; main.ts is not imported here, it imports this file). */
interface EngramFacts {
  /** Who hosts the vault, as the status bar's tooltip says it. */
  statusText(): string;
  /** The engine's configuration while hosted (`review_after_days`). */
  configAccess(): { get(key: string): unknown } | undefined;
}

function facts(plugin: Plugin): Partial<EngramFacts> {
  const has = <K extends keyof EngramFacts>(k: K): boolean => k in plugin && typeof (plugin as unknown as Record<K, unknown>)[k] === 'function';
  const p = plugin as unknown as EngramFacts;
  return {
    ...(has('statusText') ? { statusText: () => p.statusText() } : {}),
    ...(has('configAccess') ? { configAccess: () => p.configAccess() } : {}),
  };
}

export function registerCommands(plugin: Plugin, ctx: PaneContext, panes: PaneOpener): NoteActions {
  const { app } = plugin;
  const f = facts(plugin);
  const actions = new NoteActions(app, ctx, {
    hostText: f.statusText,
    reviewDays: () => {
      const days = f.configAccess?.()?.get('review_after_days');
      return typeof days === 'number' && days > 0 ? days : undefined;
    },
  });
  /** A command on the active Markdown note: listed only while one is open. */
  const onNote = (id: string, name: string, run: (file: TFile) => Promise<void>): void => {
    plugin.addCommand({
      id,
      name,
      checkCallback: (checking) => {
        const file = app.workspace.getActiveFile();
        if (!markdown(file)) return false;
        if (!checking) act(run(file));
        return true;
      },
    });
  };

  plugin.addCommand({ id: 'open-review', name: 'Open working-memory review', callback: () => act(panes.open(PANES.review)) });
  plugin.addCommand({ id: 'open-restructure', name: 'Open restructure', callback: () => act(panes.open(PANES.restructure)) });
  plugin.addCommand({ id: 'open-search', name: 'Open memory search', callback: () => act(panes.open(PANES.search)) });
  plugin.addCommand({ id: 'open-dashboard', name: 'Open dashboard', callback: () => act(panes.open(PANES.dashboard)) });
  plugin.addCommand({ id: 'open-activity', name: 'Open activity', callback: () => act(panes.open(PANES.activity)) });
  plugin.addCommand({
    id: 'merge-notes',
    name: 'Merge notes…',
    callback: () => {
      const file = app.workspace.getActiveFile();
      act(actions.pickAndMerge(markdown(file) ? [file.path] : []));
    },
  });
  onNote('split-note', 'Split current note at its headings', (f) => actions.split(f.path));
  plugin.addCommand({
    id: 'file-selection',
    name: 'File selection as memory',
    editorCheckCallback: (checking: boolean, editor: Editor, info: MarkdownView | MarkdownFileInfo) => {
      if (!markdown(info.file)) return false;
      if (!checking) act(actions.fileSelection(editor.getSelection()));
      return true;
    },
  });
  onNote('recall-related', 'Recall related to current note', () => panes.open(PANES.related));
  onNote('toggle-working-memory', 'Toggle working memory on current note', (f) => actions.toggleWorkingMemory(f.path));
  onNote('toggle-lock', 'Lock or unlock current note', (f) => actions.toggleLock(f.path));
  plugin.addCommand({ id: 'reindex', name: 'Reindex vault', callback: () => act(actions.reindex()) });
  plugin.addCommand({ id: 'status', name: 'Show status', callback: () => actions.status() });

  /** Split and lock for one note (the file explorer's and the editor's menus). */
  const noteItems = (menu: Menu, file: TFile): void => {
    if (!ctx.api()) return;
    const locked = actions.isLocked(file.path);
    menu.addItem((i) => i.setTitle('Merge with other notes…').setIcon('git-merge').setSection('action').onClick(() => act(actions.pickAndMerge([file.path]))));
    if (!locked) menu.addItem((i) => i.setTitle('Split at headings').setIcon('scissors').setSection('action').onClick(() => act(actions.split(file.path))));
    menu.addItem((i) => i.setTitle(locked ? 'Unlock note' : 'Lock note').setIcon(locked ? 'unlock' : 'lock').setSection('action').onClick(() => act(actions.toggleLock(file.path))));
  };
  plugin.registerEvent(
    app.workspace.on('file-menu', (menu, file) => {
      if (markdown(file)) noteItems(menu, file);
    }),
  );
  plugin.registerEvent(
    app.workspace.on('editor-menu', (menu, editor, info) => {
      if (markdown(info.file)) noteItems(menu, info.file);
      if (ctx.api() && editor.somethingSelected()) menu.addItem((i) => i.setTitle('File selection as memory').setIcon('brain').setSection('action').onClick(() => act(actions.fileSelection(editor.getSelection()))));
    }),
  );
  plugin.registerEvent(
    app.workspace.on('files-menu', (menu, files) => {
      const notes = files.filter(markdown);
      if (!ctx.api() || notes.length < 2) return;
      menu.addItem((i) => i.setTitle(`Merge ${notes.length} notes`).setIcon('git-merge').setSection('action').onClick(() => act(actions.merge(notes.map((f) => f.path)))));
    }),
  );
  return actions;
}
