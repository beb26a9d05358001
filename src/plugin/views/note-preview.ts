// A note Engram would write, as the user will read it in Obsidian: its properties as a short list and its body as
// rendered Markdown (links, lists, code), with the exact Markdown source one click away. What is applied is the
// source, word for word; the rendering is only how it is shown.
import { parseNote } from '../../core/note/frontmatter';

/** Renders Markdown into an element (Obsidian's MarkdownRenderer, bound to the pane or modal that owns the element). */
export type RenderMarkdown = (el: HTMLElement, markdown: string, sourcePath: string) => void;

/** A property value as one line: lists joined, objects as JSON. */
function valueText(v: unknown): string {
  if (Array.isArray(v)) return v.map(valueText).join(', ');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * Draws `text` (a whole note) into `el`: properties, rendered body, and a closed "Markdown source" holding the text
 * itself in `sourceCls`. A note whose frontmatter does not parse is rendered whole, as Obsidian would show it.
 */
export function renderNotePreview(el: HTMLElement, text: string, sourcePath: string, render: RenderMarkdown, sourceCls: string): void {
  const note = parseNote(text);
  const data = note.data ?? {};
  const keys = Object.keys(data);
  if (keys.length) {
    const props = el.createDiv({ cls: 'engram-note-props' });
    for (const k of keys) {
      const row = props.createDiv({ cls: 'engram-note-prop' });
      row.createSpan({ cls: 'engram-note-prop-key', text: k });
      row.createSpan({ cls: 'engram-note-prop-value', text: valueText(data[k]) });
    }
  }
  render(el.createDiv({ cls: 'engram-note-rendered markdown-rendered' }), note.data ? note.body : text, sourcePath);
  const source = el.createEl('details', { cls: 'engram-note-source' });
  source.createEl('summary', { text: 'Markdown source' });
  source.createEl('pre', { cls: sourceCls, text });
}
