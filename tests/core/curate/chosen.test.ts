import { describe, expect, it } from 'vitest';
import { Curation } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { NOW, settings } from './fixtures';

const FILES = {
  'Notes/Deploy.md': '---\ntags: [deploy]\n---\nThe deploy script must run from the repository root.\n',
  'Notes/Release.md': '---\ntags: [release]\n---\nTag the release after the deploy.\n',
  'Notes/Index.md': 'See [[Deploy]] and [[Release]].\n',
  'Notes/Locked.md': '---\nlocked: true\n---\nDo not touch.\n',
  'Notes/Broken.md': '---\ntags: [a\n---\nBad YAML.\n',
  'Notes/Guide.md': '---\ntags: [guide]\n---\nOpening.\n\n## Setup\n\nInstall it.\n\n## Usage\n\nRun it. ^run\n',
  'Notes/Flat.md': 'No headings here.\n',
  'Notes/Cites.md': 'See [[Guide#Usage]] and [[Guide#^run]].\n',
};

function curation() {
  const vault = new MemoryVault({ files: { ...FILES }, clock: { now: () => NOW } });
  return { vault, c: new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } }) };
}

describe('merges and splits the user chose', () => {
  it('merges the chosen notes into one and relinks; nothing changes until applied', async () => {
    const { vault, c } = curation();
    const p = await c.proposeMerge(['Notes/Release.md', 'Notes/Deploy.md']);
    expect(p.kind).toBe('merge');
    expect(p.writes).toHaveLength(1);
    expect(p.writes[0].text).toMatch(/repository root[\s\S]*## Release\n\nTag the release/);
    expect((await vault.read('Notes/Release.md')).text).toBe(FILES['Notes/Release.md']);
    const [out] = await c.apply([p.id], { actor: 'plugin' });
    expect(out.ok).toBe(true);
    const merged = p.writes[0].path;
    expect((await vault.read(merged)).text).toBe(p.writes[0].text);
    const gone = merged === 'Notes/Deploy.md' ? 'Notes/Release.md' : 'Notes/Deploy.md';
    expect(await vault.exists(gone)).toBe(false);
    expect((await vault.read('Notes/Index.md')).text).not.toContain(`[[${gone.slice(6, -3)}]]`);
  });

  it('refuses one note, a locked note and a note with invalid YAML', async () => {
    const { c } = curation();
    await expect(c.proposeMerge(['Notes/Deploy.md'])).rejects.toThrow(/two or more/);
    await expect(c.proposeMerge(['Notes/Deploy.md', 'Notes/Locked.md'])).rejects.toThrow(/Locked\.md is locked/);
    await expect(c.proposeMerge(['Notes/Deploy.md', 'Notes/Broken.md'])).rejects.toThrow(/invalid frontmatter/);
    await expect(c.proposeMerge(['Notes/Deploy.md', 'Notes/Nowhere.md'])).rejects.toThrow(/no note at Notes\/Nowhere\.md/);
    await expect(c.proposeSplit('Notes/Locked.md')).rejects.toThrow(/is locked/);
    await expect(c.proposeSplit('Notes/Broken.md')).rejects.toThrow(/invalid frontmatter/);
    await expect(c.proposeSplit('Notes/Flat.md')).rejects.toThrow(/no headings/);
  });

  it('splits a note at its headings, however short the sections, and links to its sections follow (showing what they said)', async () => {
    const { vault, c } = curation();
    const p = await c.proposeSplit('Notes/Guide.md');
    expect(p.writes.map((w) => w.path)).toEqual(['Notes/Guide.md', 'Notes/Guide - Setup.md', 'Notes/Guide - Usage.md']);
    const [out] = await c.apply([p.id], { actor: 'plugin' });
    expect(out.ok).toBe(true);
    expect((await vault.read('Notes/Guide.md')).text).toMatch(/^---\ntags: \[guide\]\n---\nOpening\.\n\n## Parts\n\n- \[\[Guide - Setup\]\]\n- \[\[Guide - Usage\]\]\n$/);
    expect((await vault.read('Notes/Guide - Usage.md')).text).toMatch(/Run it\. \^run/);
    expect((await vault.read('Notes/Cites.md')).text).toBe('See [[Guide - Usage|Guide > Usage]] and [[Guide - Usage#^run|Guide > ^run]].\n');
  });
});

describe('extend or delete what the user chose in the review', () => {
  it('extends a working-memory note by the settings weeks, or moves it to the trash; a locked note is refused', async () => {
    const wm = '---\ntype: insight\nreview_after: 2020-01-01\nengram_id: w1\n---\nHalf done.\n';
    const vault = new MemoryVault({ files: { 'WM/Half.md': wm, 'WM/Other.md': wm.replace('w1', 'w2'), 'Notes/Locked.md': FILES['Notes/Locked.md'] }, clock: { now: () => NOW } });
    const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW } });
    const extend = await c.proposeReview(['WM/Half.md'], 'extend');
    expect(extend.kind).toBe('extend');
    expect((await vault.read('WM/Half.md')).text).toBe(wm);
    expect((await c.apply([extend.id], { actor: 'plugin' }))[0].ok).toBe(true);
    const after = (await vault.read('WM/Half.md')).text;
    expect(after).toMatch(/review_after: \d{4}-\d\d-\d\d/);
    expect(after).not.toContain('2020-01-01');
    const del = await c.proposeReview(['WM/Other.md'], 'delete');
    expect((await c.apply([del.id], { actor: 'plugin' }))[0].ok).toBe(true);
    expect(await vault.exists('WM/Other.md')).toBe(false);
    await expect(c.proposeReview(['Notes/Locked.md'], 'delete')).rejects.toThrow(/is locked/);
  });
});

describe('one curation queue', () => {
  it('a chosen proposal waits for curation work under way (it never reads a half-applied vault)', async () => {
    const { c } = curation();
    const order: string[] = [];
    let finish!: () => void;
    const first = c.exclusive(async () => {
      order.push('apply starts');
      await new Promise<void>((r) => (finish = r));
      order.push('apply ends');
    });
    const second = c.exclusive(async () => {
      order.push('merge planned');
      return c.proposeMerge(['Notes/Deploy.md', 'Notes/Release.md']);
    });
    await Promise.resolve();
    expect(order).toEqual(['apply starts']);
    finish();
    await first;
    expect((await second).kind).toBe('merge');
    expect(order).toEqual(['apply starts', 'apply ends', 'merge planned']);
  });
});
