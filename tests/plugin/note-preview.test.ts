// @vitest-environment happy-dom
// The previews of the notes Engram would write (review pane, merge/split preview): properties as a list, the body
// through Obsidian's Markdown renderer (wikilinks and lists rendered, not shown as raw YAML and [[...]]), and the
// exact text, word for word, under "Markdown source".
import { beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'obsidian-test-mocks/setup';
import { renderNotePreview } from '../../src/plugin/views/note-preview';

const NOTE = '---\ntype: decision\nproject: acme\ntags: [deploy, ci]\n---\nDeploy from the root; see [[Deploy guide]].\n\n- retry once\n';

describe('note preview', () => {
  // Obsidian's DOM helpers (createDiv, createEl) on HTMLElement.
  beforeAll(() => setup());
  it('renders the body as Markdown, lists the properties, and keeps the exact text as the source', () => {
    const el = document.createElement('div');
    const rendered: { markdown: string; path: string }[] = [];
    renderNotePreview(el, NOTE, 'Engram/Projects/acme/Deploy.md', (into, markdown, path) => {
      rendered.push({ markdown, path });
      into.textContent = `rendered: ${markdown}`;
    }, 'src-text');
    // The renderer got the body (no frontmatter) and the note's own path (links resolve from there).
    expect(rendered).toEqual([{ markdown: 'Deploy from the root; see [[Deploy guide]].\n\n- retry once\n', path: 'Engram/Projects/acme/Deploy.md' }]);
    const props = [...el.querySelectorAll('.engram-note-prop')].map((r) => r.textContent);
    expect(props).toEqual(['typedecision', 'projectacme', 'tagsdeploy, ci']);
    // No raw YAML outside the source.
    const shown = el.querySelector('.engram-note-rendered')!.textContent!;
    expect(shown).not.toContain('---');
    const source = el.querySelector('details.engram-note-source')!;
    expect(source.hasAttribute('open')).toBe(false);
    expect(source.querySelector('pre.src-text')!.textContent).toBe(NOTE);
  });

  it('a note whose frontmatter does not parse is rendered whole', () => {
    const el = document.createElement('div');
    const broken = '---\ntype: [unclosed\n---\nBody.\n';
    let got = '';
    renderNotePreview(el, broken, 'x.md', (_into, markdown) => (got = markdown), 'src-text');
    expect(got).toBe(broken);
    expect(el.querySelectorAll('.engram-note-prop')).toHaveLength(0);
  });
});
