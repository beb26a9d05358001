// `engram index`: builds or brings up to date the vault's index and its snapshot, with a progress bar on a terminal
// (sparse progress lines elsewhere). Ctrl-C says what is kept: the snapshot is saved whole or not at all.
import fs from 'node:fs';
import type { IndexProgress } from '../../../src/core/index/vault-index.js';
import type { IndexUpdateResult } from '../../../src/core/protocol/messages.js';
import { engramHome } from '../../../src/core/state.js';
import { requireVault } from '../../hosting/resolve.js';
import { locateModel, resolveModel, type ModelState } from '../../hosting/embedder.js';
import { callEngine } from '../../client/forward.js';
import { progressFor, stepProgress, terminalProgress, type ProgressLine } from '../progress.js';
import type { CommandContext, CommandDefinition } from '../types.js';
import { count } from '../../../src/core/plural.js';

/** Bar, notes/s and ETA per phase; `target` is a progress line, or a raw terminal writer (redrawn in place). */
export function progressBar(target: ProgressLine | ((s: string) => void), now: () => number = Date.now): (p: IndexProgress) => void {
  const line = typeof target === 'function' ? terminalProgress({ write: target, columns: () => 200 }) : target;
  // A phase's rate counts from the end of the one before (or from now): its first report already has a batch done.
  let start = now();
  let seen = start;
  let phase = '';
  let last = 0;
  let ended = false;
  return (p) => {
    const t = now();
    if (p.phase !== phase) {
      phase = p.phase;
      start = seen;
      ended = false;
    }
    seen = t;
    // The last batch and the end of the phase can both report the total: the line ends once.
    if (p.total === 0 || ended || (t - last < 100 && p.done < p.total)) return;
    last = t;
    const secs = Math.max(0.001, (t - start) / 1000);
    const rate = p.done / secs;
    const eta = rate > 0 ? (p.total - p.done) / rate : 0;
    const width = 30;
    const fill = Math.round((width * p.done) / p.total);
    const label = p.phase === 'embed' ? 'embedding' : p.phase === 'load' ? 'loading' : 'indexing';
    line.show(`${label} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${p.done}/${p.total} notes  ${rate.toFixed(0)} notes/s  ETA ${eta.toFixed(0)} s`);
    if (p.done >= p.total) {
      ended = true;
      line.done();
    }
  };
}

export const command: CommandDefinition = {
  usage: 'index [--vault <path>] [--rebuild]',
  description: 'Build the search index of the vault, or bring it up to date (only changed notes are read again), and save its snapshot.',
  options: {
    rebuild: { type: 'boolean', description: 'Ignore the saved snapshot and index every note again' },
  },
  async run(ctx) {
    const rebuild = Boolean(ctx.options.rebuild);
    const snapshot = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config).state.snapshot;
    // A live host owns the index and its snapshot: it brings them up to date (or rebuilds them) and saves. With none,
    // the CLI's own host opens the index here; nothing of this run is on disk until the snapshot is written (whole,
    // by rename), after the last note.
    ctx.interrupt?.leaves(() =>
      fs.existsSync(snapshot)
        ? `nothing of this run was saved: the snapshot from before is kept (${snapshot}); \`engram index\` again reads what changed since it`
        : 'no snapshot was saved; `engram index` again starts from the beginning',
    );
    const progress = progressFor(ctx);
    const interrupt = ctx.interrupt;
    // The host's steps (reading, saving) as progress lines; here the bar shows the indexing itself.
    const steps = stepProgress(ctx);
    const { result: r, by } = await callEngine(ctx, 'index.update', { rebuild }, {
      deadlineMs: 60 * 60_000,
      onProgress: steps?.show,
      index: { model: () => modelFor(ctx), rebuild, onProgress: progress ? progressBar(progress) : undefined },
      saveGuard: interrupt ? (save) => interrupt.shield('saving the snapshot', save, `the index is complete and its snapshot saved (${snapshot})`) : undefined,
    }).finally(() => steps?.done());
    progress?.done();
    if (by === 'host' || !r.opened || !r.stats) return printHosted(ctx, r);
    const { opened: report, stats } = r;
    const bytes = r.snapshotBytes;
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ vault: r.vault, snapshot, snapshotBytes: bytes, report, stats, modelProblem: r.modelProblem ?? null }, null, 2));
      return 0;
    }
    ctx.stdout(`Indexed ${r.vault}: ${count(stats.notes, 'note')}, ${count(stats.chunks, 'chunk')}, ${count(stats.vectors, 'vector')} (${(report.ms / 1000).toFixed(1)} s)`);
    ctx.stdout(
      `  ${report.loaded ? 'snapshot loaded' : `full build (${report.reason ?? 'no snapshot'})`}; ${report.indexed} indexed, ${report.unchanged} unchanged, ${report.removed} removed, ${report.embedded} chunks embedded`,
    );
    if (report.reembedAll) ctx.stdout('  the embedding model changed: every vector was recomputed');
    ctx.stdout(`  search mode: ${stats.mode === 'hybrid' ? `hybrid (BM25 + ${stats.model ?? 'model'})` : `BM25 only: ${r.modelProblem ?? 'no model'}`}`);
    for (const s of report.skipped.slice(0, 20)) ctx.stdout(`  skipped (unreadable): ${s.path}: ${s.reason}`);
    if (report.skipped.length > 20) ctx.stdout(`  … and ${report.skipped.length - 20} more unreadable notes`);
    if (report.problems.length) ctx.stdout(`  ${report.problems.length} notes have invalid frontmatter (indexed by their text), e.g. ${report.problems[0].path}: ${report.problems[0].reason}`);
    ctx.stdout(`  snapshot: ${snapshot} (${(bytes / 1e6).toFixed(1)} MB)`);
    return 0;
  },
};

/** The embedding model the CLI's own host indexes with (loaded first, so the index is embedded as it is built). */
export async function modelFor(ctx: CommandContext, wanted: 'hybrid' | 'bm25' = 'hybrid'): Promise<ModelState> {
  const home = engramHome(ctx.facts);
  if (wanted === 'bm25') return { location: locateModel({ engramHome: home, modelId: 'none', modelPath: null }), problem: 'BM25 mode requested' };
  return resolveModel(ctx.config(), home);
}

/** What the vault's live host did. */
function printHosted(ctx: CommandContext, h: IndexUpdateResult): number {
  if (ctx.global.json) {
    ctx.stdout(JSON.stringify({ ...h, host: { pid: h.pid } }, null, 2));
    return 0;
  }
  ctx.stdout(`Indexed ${h.vault}: ${count(h.notes, 'note')} (${(h.ms / 1000).toFixed(1)} s), by the running host (pid ${h.pid})`);
  ctx.stdout(`  ${h.rebuilt ? 'full rebuild' : 'brought up to date'}; search mode: ${h.mode}`);
  if (h.snapshot) ctx.stdout(`  snapshot: ${h.snapshot} (${(h.snapshotBytes / 1e6).toFixed(1)} MB)`);
  return 0;
}
