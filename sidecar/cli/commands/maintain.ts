// `engram maintain`: archive notes past `forget_after` (dry run by default, `--apply` to move them), and list
// stale notes (not recalled in a while), orphans and possible duplicates for the user to look at.
import { applyProposal } from '../../../src/core/curate/apply.js';
import { loadCatalog } from '../../../src/core/curate/catalog.js';
import { archiveProposals, orphanNotes, possibleDuplicates, staleNotes } from '../../../src/core/curate/maintain.js';
import { EngramError } from '../../../src/core/errors.js';
import { hostFacts } from '../../host/facts.js';
import { openCurateHost } from '../../host/curate-host.js';
import { forwardToHost } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';

const SHOWN = 20;

export const command: CommandDefinition = {
  usage: 'maintain [--dry-run | --apply] [--stale-days <n>] [--json]',
  description:
    'Archive notes past their forget_after date into the archive folder (out of recall; --apply to move them, logged), and list stale notes (not recalled in N days), orphans (no links either way) and possible duplicates. Lists never change anything.',
  options: {
    'dry-run': { type: 'boolean', description: 'Show what would be archived (the default)' },
    apply: { type: 'boolean', description: 'Archive the notes that are past forget_after' },
    'stale-days': { type: 'number', valueName: '<n>', description: 'Not recalled for this many days = stale (default 90)' },
  },
  async run(ctx) {
    if (ctx.options.apply && ctx.options['dry-run']) throw new EngramError('usage', '--dry-run and --apply cannot be used together');
    const staleDays = ctx.options['stale-days'] as number | undefined;
    if (staleDays !== undefined && !(staleDays >= 0)) throw new EngramError('usage', '--stale-days must be 0 or more');
    // --apply moves notes: a live host (the vault's one writer) does it. The dry run only reads, so it runs here.
    if (ctx.options.apply) {
      const forwarded = await forwardToHost(ctx, 'maintain');
      if (forwarded !== undefined) return forwarded;
    }
    const host = openCurateHost(hostFacts(ctx.env), ctx.cwd, ctx.global.vault, 'cli', staleDays !== undefined ? { staleDays } : {});
    const now = host.ctx.clock.now();
    const catalog = await loadCatalog(host.ctx.vault);
    const archive = archiveProposals(catalog, host.ctx.settings, now);
    const applied: string[] = [];
    const failed: string[] = [];
    if (ctx.options.apply) {
      for (const p of archive) {
        await host.ctx.store.save(p);
        try {
          const r = await applyProposal(host.ctx, p.id);
          applied.push(...r.moved.map(([a, b]) => `${a} → ${b}`));
        } catch (e) {
          if (!(e instanceof EngramError)) throw e;
          failed.push(`${p.moves[0][0]}: ${e.message}`);
        }
      }
    }
    const stale = staleNotes(catalog, host.ctx.settings, await host.recallStats.load(), now);
    const orphans = orphanNotes(catalog, host.ctx.settings);
    const duplicates = possibleDuplicates(catalog, host.ctx.settings);
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ archive: archive.map((p) => ({ id: p.id, from: p.moves[0][0], to: p.moves[0][1], reason: p.reason })), applied, failed, stale, orphans, duplicates }, null, 2));
      return failed.length ? 1 : 0;
    }
    if (ctx.options.apply) {
      ctx.stdout(`Archived ${applied.length} note${applied.length === 1 ? '' : 's'}.`);
      for (const a of applied) ctx.stdout(`  ${a}`);
      for (const f of failed) ctx.stdout(`  not archived: ${f}`);
    } else {
      ctx.stdout(`${archive.length} note${archive.length === 1 ? '' : 's'} past forget_after would be archived${archive.length ? ' (run with --apply)' : ''}:`);
      for (const p of archive) ctx.stdout(`  ${p.moves[0][0]} → ${p.moves[0][1]}  (${p.reason})`);
    }
    const list = (title: string, items: string[]) => {
      ctx.stdout(`${title}: ${items.length}`);
      for (const i of items.slice(0, SHOWN)) ctx.stdout(`  ${i}`);
      if (items.length > SHOWN) ctx.stdout(`  … ${items.length - SHOWN} more (--json lists all)`);
    };
    list(`Stale (Engram notes not recalled in ${host.ctx.settings.staleDays} days)`, stale.map((s) => `${s.path}${s.lastRecalled ? `  last recalled ${s.lastRecalled.slice(0, 10)}` : '  never recalled'}`));
    list('Orphans (Engram notes with no links either way)', orphans);
    list('Possible duplicates', duplicates.map((d) => `${d.why}: ${d.notes.join(', ')}`));
    return failed.length ? 1 : 0;
  },
};
