import { describe, expect, it } from 'vitest';
import { appendLogOnce, formatEntry, logPath, type LogEntry } from '../../../src/core/curate/change-log';
import { Curation } from '../../../src/core/curate/service';
import { MemoryStateStore } from '../../../src/core/extract/state-store';
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import { ScriptedBackend } from '../../helpers/extract';
import { NOW, settings } from './fixtures';

const wm = (body: string) => `---\ntype: problem\nscope: general\nreview_after: 2026-03-01\nengram_id: wm1\nengram_source: hook-extraction\n---\n${body}\n`;

describe('the change log is never a target of curation', () => {
  it('a note curated once (review extends it, the log links it) is then forgotten at the first try', async () => {
    const vault = new MemoryVault({
      files: {
        'Engram/Working memory/Half done.md': wm('Auth migration, half done.'),
        'Notes/Plan.md': '---\ntags: [x]\n---\nSee [[Engram/Working memory/Half done]].\n',
      },
      clock: { now: () => NOW },
    });
    const backend = new ScriptedBackend((req) => {
      const paths = [...(req.user ?? '').matchAll(/^path: (.+)$/gm)].map((m) => m[1]);
      return JSON.stringify({ decisions: paths.map((p) => ({ action: 'extend', notes: [p], reason: 'in progress', weeks: 2 })) });
    });
    const c = new Curation({ vault, state: new MemoryStateStore(), vaultKey: '0123456789abcdef', settings, clock: { now: () => NOW }, backend: () => backend });
    const plan = await c.reviewPlan({ dueWithinDays: 30 });
    const [ok] = await c.apply(plan.proposals.map((p) => p.id));
    expect(ok.ok).toBe(true);
    const log = ok.result!.logPath;
    const before = (await vault.read(log)).text;
    // The log links the note it wrote, so the log is one of the note's backlinks.
    expect(before).toContain('[[Engram/Working memory/Half done]]');
    const r = await c.forget('Half done');
    expect(r.archivedTo).toBe('Engram/Archive/Half done.md');
    const after = (await vault.read(log)).text;
    // The log only grew: its earlier lines are byte for byte as they were, links included.
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/started\n.*moved `Engram\/Working memory\/Half done.md` → `Engram\/Archive\/Half done.md`/);
    // The user's note, linking the same way, was relinked to the archive.
    expect((await vault.read('Notes/Plan.md')).text).toContain('See [[Engram/Archive/Half done');
  });

  it('appends never lose a line: many appends at once all land, each once', async () => {
    const vault = new MemoryVault({ clock: { now: () => NOW } });
    const entries: LogEntry[] = Array.from({ length: 40 }, (_, i) => ({ at: NOW + i, actor: 'cli', action: 'forget', wrote: [], from: [`n${i}.md`], trashed: [], moved: [], relinked: 0 }));
    await Promise.all(entries.map((e) => appendLogOnce(vault, 'Engram/Log', 'dev-a', e)));
    await appendLogOnce(vault, 'Engram/Log', 'dev-a', entries[3]);
    const text = (await vault.read(logPath('Engram/Log', 'dev-a', NOW))).text;
    for (const e of entries) expect(text.split('\n').filter((l) => l === formatEntry(e))).toHaveLength(1);
  });
});
