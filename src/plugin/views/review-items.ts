// What the review pane draws for a plan (and when there is none): the due notes grouped by project and by cluster (the plan's groups), each
// proposal with its notes (summary, age, source session, links), what it would do, and the text a promotion writes.
import type { ConflictChoice, SyncConflict } from '../../core/curate/conflicts';
import type { Proposal } from '../../core/curate/proposals';
import type { ReviewPlanResult } from '../../core/curate/service';
import type { NoteMeta } from '../../core/note/meta';
import { renderDiff } from './diff-render';
import { renderNotePreview, type RenderMarkdown } from './note-preview';

/** What an item needs from the pane: notes' metadata, the clock, the user's choices so far, and the actions. */
export interface ReviewItemHost {
  meta(path: string): NoteMeta | undefined;
  now: number;
  isSelected(id: string): boolean;
  /** The user's text for a promotion being edited (undefined: not being edited). */
  editedText(id: string): string | undefined;
  toggleSelected(id: string, on: boolean): void;
  approve(p: Proposal): void;
  startEdit(p: Proposal): void;
  editText(id: string, text: string): void;
  reject(p: Proposal): void;
  open(path: string): void;
  /** Renders a preview's Markdown (the pane's MarkdownRenderer). */
  renderMarkdown: RenderMarkdown;
}

const KIND_LABEL: Record<string, string> = { promote: 'Promote to a durable note', extend: 'Extend', delete: 'Delete', capture: 'New from a session' };

/** The section of notes capture holds for approval (capture.mode inbox). */
export const INBOX_SECTION = 'Captured, waiting for approval';

/** A proposal whose new note's text the user may edit before approving it. */
function editable(p: Proposal): boolean {
  return p.kind === 'promote' || p.kind === 'capture';
}

/** "today", "3 days", "5 weeks": how long ago. */
export function ageText(created: number | undefined, now: number): string {
  if (created === undefined) return 'age unknown';
  const days = Math.floor((now - created) / 86_400_000);
  if (days <= 0) return 'written today';
  if (days < 14) return `${days} day${days === 1 ? '' : 's'} old`;
  return `${Math.floor(days / 7)} weeks old`;
}

function noteTitle(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

/** The proposals of the plan in the order drawn, grouped by project, then cluster. */
export function orderedSections(plan: ReviewPlanResult, meta: (path: string) => NoteMeta | undefined, hidden: ReadonlySet<string>): Array<{ project: string; clusters: Proposal[][] }> {
  const byNote = new Map<string, Proposal>();
  for (const p of plan.proposals) if (!hidden.has(p.id)) for (const s of p.sources) byNote.set(s.path, p);
  const sections = new Map<string, Proposal[][]>();
  for (const group of plan.groups) {
    const seen = new Set<Proposal>();
    const cluster: Proposal[] = [];
    for (const path of group) {
      const p = byNote.get(path);
      if (p && !seen.has(p)) {
        seen.add(p);
        cluster.push(p);
      }
    }
    if (!cluster.length) continue;
    const project = meta(group[0])?.project ?? 'No project';
    if (!sections.has(project)) sections.set(project, []);
    sections.get(project)!.push(cluster);
  }
  // Beats held by capture.mode inbox: no note yet, so no due group; each its own item, oldest first.
  const held = plan.proposals.filter((p) => p.kind === 'capture' && !hidden.has(p.id));
  const out = [...sections].map(([project, clusters]) => ({ project, clusters }));
  return held.length ? [{ project: INBOX_SECTION, clusters: held.map((p) => [p]) }, ...out] : out;
}

function renderNote(el: HTMLElement, path: string, host: ReviewItemHost): void {
  const m = host.meta(path);
  const row = el.createDiv({ cls: 'engram-review-note' });
  const head = row.createDiv({ cls: 'engram-review-note-head' });
  const link = head.createEl('a', { cls: 'engram-review-note-title', text: m?.title ?? noteTitle(path), href: '#' });
  link.addEventListener('click', (e) => {
    e.preventDefault();
    host.open(path);
  });
  const facts = [ageText(m?.created, host.now), m?.reviewAfter ? `review after ${m.reviewAfter}` : '', m?.engramSession ? `session ${m.engramSession.slice(0, 8)}${m.engramAgent ? ` (${m.engramAgent})` : ''}` : 'written by hand'];
  head.createSpan({ cls: 'engram-review-note-facts', text: facts.filter(Boolean).join(' · ') });
  if (m?.summary) row.createDiv({ cls: 'engram-review-note-summary', text: m.summary });
  if (m?.related.length) {
    const links = row.createDiv({ cls: 'engram-review-note-links', text: 'Links: ' });
    m.related.forEach((l, i) => {
      const name = l.replace(/^\[\[|\]\]$/g, '').split('|')[0];
      if (i) links.appendText(', ');
      const a = links.createEl('a', { text: name, href: '#' });
      a.addEventListener('click', (e) => {
        e.preventDefault();
        host.open(name);
      });
    });
  }
}


/** One step per cluster, each drawing it (its project's heading first) into `list` and returning how many items it drew. */
export function clusterSteps(list: HTMLElement, sections: Array<{ project: string; clusters: Proposal[][] }>, host: ReviewItemHost): Array<() => number> {
  const steps: Array<() => number> = [];
  for (const section of sections) {
    let s: HTMLElement | undefined;
    for (const cluster of section.clusters) {
      steps.push(() => {
        if (!s) {
          s = list.createDiv({ cls: 'engram-review-project' });
          s.createEl('h5', { cls: 'engram-review-project-name', text: section.project });
        }
        const c = s.createDiv({ cls: 'engram-review-cluster' });
        if (cluster.length > 1 || cluster[0].sources.length > 1) c.createDiv({ cls: 'engram-review-cluster-label', text: 'Related notes' });
        for (const p of cluster) renderItem(c, p, host);
        return cluster.length;
      });
    }
  }
  return steps;
}
/** One proposal: its checkbox, notes, what it would do, the preview (editable for a promotion), and its buttons. */
export function renderItem(parent: HTMLElement, p: Proposal, host: ReviewItemHost): HTMLElement {
  const item = parent.createDiv({ cls: `engram-review-item engram-review-${p.kind}`, attr: { tabindex: '-1', 'data-id': p.id, 'data-kind': p.kind, role: 'listitem' } });
  const top = item.createDiv({ cls: 'engram-review-item-top' });
  const box = top.createEl('input', { type: 'checkbox', cls: 'engram-review-select', attr: { 'aria-label': `Select: ${p.title}` } });
  box.checked = host.isSelected(p.id);
  box.addEventListener('change', () => host.toggleSelected(p.id, box.checked));
  top.createSpan({ cls: 'engram-review-kind', text: KIND_LABEL[p.kind] ?? p.kind });
  top.createSpan({ cls: 'engram-review-proposal', text: p.title });
  const notes = item.createDiv({ cls: 'engram-review-notes' });
  for (const s of p.sources) renderNote(notes, s.path, host);
  if (p.reason) item.createDiv({ cls: 'engram-review-reason', text: `Why: ${p.reason}` });
  const created = p.writes.find((w) => !w.replaces);
  if (editable(p) && created) {
    const preview = item.createDiv({ cls: 'engram-review-preview' });
    preview.createDiv({ cls: 'engram-review-preview-label', text: `Will write ${created.path}` });
    const edited = host.editedText(p.id);
    if (edited === undefined) {
      renderNotePreview(preview, created.text, created.path, host.renderMarkdown, 'engram-review-preview-text');
    } else {
      const area = preview.createEl('textarea', { cls: 'engram-review-editor', attr: { 'aria-label': `Text of ${created.path}`, rows: '12' } });
      area.value = edited;
      area.addEventListener('input', () => host.editText(p.id, area.value));
    }
  }
  const buttons = item.createDiv({ cls: 'engram-review-buttons' });
  const approve = buttons.createEl('button', { cls: 'mod-cta engram-review-approve', text: host.editedText(p.id) === undefined ? 'Approve' : 'Approve edited text' });
  approve.addEventListener('click', () => host.approve(p));
  if (editable(p) && host.editedText(p.id) === undefined) buttons.createEl('button', { cls: 'engram-review-edit', text: 'Edit text' }).addEventListener('click', () => host.startEdit(p));
  buttons.createEl('button', { cls: 'engram-review-reject', text: 'Reject' }).addEventListener('click', () => host.reject(p));
  return item;
}

/** No working memory due: what it is and when notes arrive. */
export function renderEmpty(el: HTMLElement, horizonLabel: string, horizonDays: number): void {
  const box = el.createDiv({ cls: 'engram-review-empty' });
  box.createEl('p', { cls: 'engram-review-empty-title', text: horizonDays === 0 ? 'No working memory is due today.' : `No working memory is due within ${horizonLabel}.` });
  box.createEl('p', {
    text: 'Working memory is the short-lived notes Engram writes from your agent sessions: a task in progress, a hunch, a temporary workaround. Each carries a review date (review_after).',
  });
  box.createEl('p', { text: 'Notes arrive here when their review date falls within the chosen horizon. You then promote each to a durable note, extend it, or delete it.' });
}

/** What a sync conflict needs from the pane: its three actions and opening a file. */
export interface ConflictHost {
  resolve(c: SyncConflict, choice: ConflictChoice): void;
  open(path: string): void;
}

const CHOICES: Array<{ choice: ConflictChoice; label: string; help: string }> = [
  { choice: 'mine', label: 'Keep mine', help: 'Keep the note as it is; the copy goes to the trash.' },
  { choice: 'theirs', label: 'Keep theirs', help: "The copy's text becomes the note; the note's text and the copy go to the trash." },
  { choice: 'merge', label: 'Merge both', help: 'Every line of both versions in the note; both versions go to the trash.' },
];

/** Copies a sync tool left beside notes, above the due notes: each with its diff and keep mine, keep theirs, merge both. */
export function renderConflicts(el: HTMLElement, conflicts: SyncConflict[], host: ConflictHost): void {
  if (!conflicts.length) return;
  const box = el.createDiv({ cls: 'engram-review-conflicts', attr: { role: 'list', 'aria-label': 'Sync conflicts' } });
  box.createEl('h5', { cls: 'engram-review-project-name', text: `Sync conflicts (${conflicts.length})` });
  box.createDiv({ cls: 'engram-review-conflicts-help', text: 'A sync tool kept two versions of these notes. The copy stays out of recall until you choose; what you do not keep goes to the trash.' });
  for (const c of conflicts) renderConflict(box, c, host);
}

/** One sync conflict: which files, the diff of the copy against the note, and keep mine, keep theirs, merge both. */
export function renderConflict(parent: HTMLElement, c: SyncConflict, host: ConflictHost): HTMLElement {
  const item = parent.createDiv({ cls: 'engram-review-item engram-review-conflict', attr: { 'data-path': c.path, 'data-kind': 'resolve', role: 'listitem' } });
  const top = item.createDiv({ cls: 'engram-review-item-top' });
  top.createSpan({ cls: 'engram-review-kind', text: 'Sync conflict' });
  const what = top.createSpan({ cls: 'engram-review-proposal' });
  const link = (path: string) => {
    const a = what.createEl('a', { text: path, href: '#' });
    a.addEventListener('click', (e) => {
      e.preventDefault();
      host.open(path);
    });
  };
  link(c.path);
  what.appendText(c.note === null ? ` was left by ${c.tool}; its note ` : ` is a copy of `);
  if (c.note === null) what.appendText(`${c.original} is gone`);
  else link(c.original);
  if (c.note !== null) what.appendText(` left by ${c.tool}`);
  item.createDiv({ cls: 'engram-review-reason', text: c.note === null ? 'The copy is the only version left.' : 'Lines marked - are only in your note (mine), + only in the copy (theirs).' });
  const diff = item.createDiv({ cls: 'engram-review-conflict-diff' });
  const draw = (full: boolean) => {
    diff.empty();
    renderDiff(diff, c.note ?? '', c.copy, { mode: 'unified', full, onShowFull: () => draw(true) });
  };
  draw(false);
  const buttons = item.createDiv({ cls: 'engram-review-buttons' });
  for (const { choice, label, help } of CHOICES) {
    if (!c.proposals[choice]) continue;
    const b = buttons.createEl('button', { cls: `engram-review-resolve engram-review-resolve-${choice}`, text: label, attr: { title: help, 'aria-label': `${label}: ${help}` } });
    if (choice === 'merge') b.addClass('mod-cta');
    b.addEventListener('click', () => host.resolve(c, choice));
  }
  return item;
}
