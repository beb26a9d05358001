// The engine hosted a second way: in the test process over the in-memory vault (what the Obsidian plugin will do), from
// the same operation table the daemon serves. Every protocol method a host must answer for the engine is answered
// here, and an MCP client (the SDK's, over its in-memory transport) works against it as against the daemon.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { ApplyOutcome, MaintainResult, RestructurePlanResult, ReviewPlanResult } from '../../src/core/curate/service.js';
import { methodParams, type ContextResult, type RecallResult } from '../../src/core/protocol/index.js';
import { buildMcpServer } from '../../sidecar/mcp/server.js';
import { startInProcessHost } from '../helpers/in-process-host.js';
import { answer } from '../../src/core/operations.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const clock = { now: () => NOW };

const engramNote = (fm: string, body: string) => `---\n${fm}engram_id: ${Math.random().toString(36).slice(2)}\nengram_source: hook-extraction\n---\n${body}\n`;

const FILES = {
  'Engram/Inbox/Use pnpm workspaces.md': engramNote('type: decision\nscope: general\n', 'We moved the monorepo to pnpm workspaces; installs went from 4 minutes to 40 seconds.'),
  'Engram/Working memory/Flaky login test.md': engramNote('type: problem\nscope: general\nreview_after: 2026-03-09\n', 'The login test is flaky on CI when the clock crosses midnight.'),
  'Engram/Inbox/Old spike.md': engramNote('type: insight\nscope: general\nforget_after: 2026-03-01\n', 'A spike on websockets showed nothing worth keeping.'),
  'Notes/Deploy from root.md': engramNote('tags: [deploy]\n', 'The deploy script must run from the repository root directory, never from a package folder.'),
  'Notes/Deploy from the root.md': engramNote('tags: [deploy]\n', 'The deploy script must run from the repository root directory, never from a package folder!'),
  'Notes/Index.md': 'See [[Deploy from root]] and [[Deploy from the root|the other one]].\n',
};

/** The methods only a process host has (its socket handshake, spool, jobs on files, status of its queue, handover). */
const HOST_ONLY = ['hello', 'ping', 'spool.notify', 'extract', 'extract.run', 'import.run', 'index.update', 'status', 'configure', 'host.release', 'team.propose'];

describe('the engine in a second host (in process, in-memory vault)', () => {
  it('answers every engine method of the protocol from the operation table the daemon serves', async () => {
    const host = await startInProcessHost(FILES, { clock });
    const engineMethods = Object.keys(methodParams).filter((m) => !HOST_ONLY.includes(m)).sort();
    expect(Object.keys(host.operations).sort()).toEqual(engineMethods);

    // Recall and injection: the note's text, fenced.
    const recall = (await host.call('recall', { query: 'pnpm workspaces installs' })) as RecallResult;
    expect(recall.hits[0].path).toBe('Engram/Inbox/Use pnpm workspaces.md');
    expect(recall.text).toMatch(/<engram-memory[\s\S]*4 minutes to 40 seconds[\s\S]*<\/engram-memory>/);
    const ctx = (await host.call('context', { event: 'UserPromptSubmit', prompt: 'why are pnpm workspaces installs fast?', sessionId: 's1' })) as ContextResult;
    expect(ctx.items.map((i) => i.path)).toContain('Engram/Inbox/Use pnpm workspaces.md');
    expect(((await host.call('search', { query: 'deploy root' })) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    expect(((await host.call('read', { ref: 'Use pnpm workspaces' })) as { text: string }).text).toContain('40 seconds');
    await expect(host.call('read', { ref: '../outside.md' })).rejects.toThrow(/leave the vault/);
    await expect(host.call('read', { ref: 'nope' })).rejects.toThrow(/no note/);
    await expect(host.call('recall', { query: '' })).rejects.toThrow(/at least 1/);

    // Remember, then recall finds it.
    const remembered = (await host.call('remember', { text: 'The CI cache key includes the lockfile hash.', type: 'insight' })) as { path: string };
    expect(await host.vault.exists(remembered.path)).toBe(true);
    expect(((await host.call('recall', { query: 'CI cache key lockfile' })) as RecallResult).hits[0].path).toBe(remembered.path);

    // Curation, typed: plans change no note; apply does, and says who in the vault's log.
    const review = (await host.call('review.plan', {})) as ReviewPlanResult;
    expect(review.due.map((d) => d.path)).toEqual(['Engram/Working memory/Flaky login test.md']);
    expect(review.proposals.map((p) => p.kind)).toEqual(['extend']);
    const plan = (await host.call('restructure.plan', { folder: 'Notes' })) as RestructurePlanResult;
    const merge = plan.proposals.find((p) => p.kind === 'merge')!;
    expect(merge.trash.length + merge.writes.filter((w) => w.replaces).length).toBeGreaterThanOrEqual(1);
    expect(plan.vectors).toMatch(/word vectors/);
    const before = (await host.vault.read('Notes/Index.md')).text;
    const { applied } = (await host.call('curate.apply', { ids: [merge.id, 'nosuchproposal'] })) as { applied: ApplyOutcome[] };
    expect(applied.map((o) => o.ok)).toEqual([true, false]);
    // The originals are in the trash; the merged note takes the kept one's path.
    for (const gone of merge.trash.filter((t) => !merge.writes.some((w) => w.path === t))) expect(await host.vault.exists(gone)).toBe(false);
    for (const w of merge.writes) expect((await host.vault.read(w.path)).text).toBe(w.text);
    const after = (await host.vault.read('Notes/Index.md')).text;
    expect(after).not.toBe(before);
    expect(after).toContain('|the other one]]');
    expect((await host.vault.read(applied[0].result!.logPath)).text).toMatch(/plugin · restructure merge/);

    // Maintain: the note past forget_after is listed, then archived; forget archives and recall drops it at once.
    const listed = (await host.call('maintain.run', {})) as MaintainResult;
    expect(listed.archive.map((a) => a.from)).toEqual(['Engram/Inbox/Old spike.md']);
    expect(await host.vault.exists('Engram/Inbox/Old spike.md')).toBe(true);
    const archived = (await host.call('maintain.run', { apply: true })) as MaintainResult;
    expect(archived.applied).toEqual(['Engram/Inbox/Old spike.md → Engram/Archive/Old spike.md']);
    const forgot = (await host.call('forget', { ref: 'Use pnpm workspaces' })) as { archivedTo: string };
    expect(forgot.archivedTo).toBe('Engram/Archive/Use pnpm workspaces.md');
    // Neither the note nor the log line that names it comes back.
    expect(((await host.call('recall', { query: 'pnpm workspaces installs' })) as RecallResult).text).not.toContain('pnpm workspaces');
    expect(((await host.call('reindex', {})) as { notes: number }).notes).toBe(host.engine.noteCount());
  });

  it('serves an MCP client through the same table: recall, read, restructure list, show and apply', async () => {
    const host = await startInProcessHost(FILES, { clock });
    const server = buildMcpServer({ link: { call: (method, params) => answer(host.operations, method, params) ?? Promise.reject(new Error(`${method} is not a core operation`)) }, project: 'demo', version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'vitest', version: '0.0.0' });
    await client.connect(clientSide);
    type Result = { content: { text: string }[]; isError?: boolean };
    const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
    try {
      expect((await call('recall', { query: 'pnpm workspaces installs', all_projects: true, detail: 'full' })).content[0].text).toContain('4 minutes to 40 seconds');
      expect((await call('read', { ref: 'Use pnpm workspaces' })).content[0].text).toMatch(/<engram-memory[\s\S]*40 seconds/);
      const list = (await call('restructure')).content[0].text;
      const id = /- ([0-9a-f]{12}) · merge/.exec(list)?.[1];
      expect(id, list).toBeTruthy();
      expect((await call('restructure', { show: id })).content[0].text).toContain(`Proposal ${id} (merge)`);
      const applied = await call('restructure', { apply: id });
      expect(applied.isError, applied.content[0].text).toBeFalsy();
      expect(applied.content[0].text).toMatch(new RegExp(`Applied ${id} \\(merge`));
      const refused = await call('restructure', { apply: id });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toMatch(/Not applied/);
    } finally {
      await client.close();
    }
  });
});
