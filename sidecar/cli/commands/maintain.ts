// `engram maintain`: archive notes past `forget_after` (dry run by default, `--apply` to move them), and list
// stale notes (not recalled in a while), orphans and possible duplicates for the user to look at.
import { EngramError } from '../../../src/core/errors.js';
import { describeConflicts, vaultConflicts } from '../../hosting/conflict-copies.js';
import { requireVault } from '../../hosting/resolve.js';
import { callEngine } from '../../client/forward.js';
import { CLI_ACTOR } from '../curate-output.js';
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
    // The vault's engine runs it: its live host (the vault's one writer), else the same host here.
    const r = (await callEngine(ctx, 'maintain.run', { actor: CLI_ACTOR, apply: Boolean(ctx.options.apply), staleDays })).result;
    // Sync conflicts (a vault synced between machines): copies kept out of recall until the user resolves them.
    const conflicts = await vaultConflicts(requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config).realPath, { markers: true });
    if (ctx.global.json) {
      const { staleDays: _days, ...rest } = r;
      ctx.stdout(JSON.stringify({ ...rest, conflicts }, null, 2));
      return r.failed.length ? 1 : 0;
    }
    if (ctx.options.apply) {
      ctx.stdout(`Archived ${r.applied.length} note${r.applied.length === 1 ? '' : 's'}.`);
      for (const a of r.applied) ctx.stdout(`  ${a}`);
      for (const f of r.failed) ctx.stdout(`  not archived: ${f}`);
    } else {
      ctx.stdout(`${r.archive.length} note${r.archive.length === 1 ? '' : 's'} past forget_after would be archived${r.archive.length ? ' (run with --apply)' : ''}:`);
      for (const a of r.archive) ctx.stdout(`  ${a.from} → ${a.to}  (${a.reason})`);
    }
    const list = (title: string, items: string[]) => {
      ctx.stdout(`${title}: ${items.length}`);
      for (const i of items.slice(0, SHOWN)) ctx.stdout(`  ${i}`);
      if (items.length > SHOWN) ctx.stdout(`  … ${items.length - SHOWN} more (--json lists all)`);
    };
    list(`Stale (Engram notes not recalled in ${r.staleDays} days)`, r.stale.map((s) => `${s.path}${s.lastRecalled ? `  last recalled ${s.lastRecalled.slice(0, 10)}` : '  never recalled'}`));
    list('Orphans (Engram notes with no links either way)', r.orphans);
    list('Possible duplicates', r.duplicates.map((d) => `${d.why}: ${d.notes.join(', ')}`));
    if (conflicts.length) {
      ctx.stdout(`Sync conflicts (kept out of recall until resolved): ${conflicts.length}`);
      for (const line of describeConflicts(conflicts)) ctx.stdout(line);
    }
    return r.failed.length ? 1 : 0;
  },
};
