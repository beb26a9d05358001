// EngramApi.setFrontmatter (lock, working memory): only the named keys change, null removes one, a note with invalid
// YAML is refused and left byte for byte.
import { describe, expect, it } from 'vitest';
import { operationsApi } from '../../src/plugin/views/api';
import { startInProcessHost } from '../helpers/in-process-host';

describe('EngramApi.setFrontmatter', () => {
  it('sets and removes keys through the splice editor, leaving the rest as written', async () => {
    const note = '---\n# kept comment\ntags: [a,  b]\nreview_after: 2026-04-01\n---\nBody [[Link]].\n';
    const h = await startInProcessHost({ 'Notes/A.md': note, 'Notes/Plain.md': 'No frontmatter.\n' });
    const api = operationsApi(h.engine, h.operations);
    await api.setFrontmatter('Notes/A.md', { locked: true, review_after: null });
    expect(h.vault.snapshot()['Notes/A.md']).toBe('---\n# kept comment\ntags: [a,  b]\nlocked: true\n---\nBody [[Link]].\n');
    await api.setFrontmatter('Notes/Plain.md', { locked: true });
    expect(h.vault.snapshot()['Notes/Plain.md']).toBe('---\nlocked: true\n---\nNo frontmatter.\n');
  });

  it('refuses a note with invalid YAML and leaves it alone', async () => {
    const broken = '---\ntags: [a\n---\nBody.\n';
    const h = await startInProcessHost({ 'Notes/Broken.md': broken });
    const api = operationsApi(h.engine, h.operations);
    await expect(api.setFrontmatter('Notes/Broken.md', { locked: true })).rejects.toThrow(/Notes\/Broken.md/);
    expect(h.vault.snapshot()['Notes/Broken.md']).toBe(broken);
  });
});
