// Shared by `engram review`, `restructure`, `maintain` and `forget`: option parsing and how proposals print.
import type { Proposal } from '../../src/core/curate/proposals.js';
import type { ApplyGuard, ApplyOutcome } from '../../src/core/curate/service.js';
import { EngramError } from '../../src/core/errors.js';
import { callEngine } from '../client/forward.js';
import type { CommandContext } from './types.js';

/** Ids given with `--apply <id>` (repeatable) plus any positionals after it. */
export function idsToApply(ctx: CommandContext): string[] {
  const opt = ctx.options.apply;
  const list = Array.isArray(opt) ? opt : typeof opt === 'string' ? [opt] : [];
  if (list.length === 0) return [];
  if (ctx.options['dry-run']) throw new EngramError('usage', '--dry-run and --apply cannot be used together');
  return [...list, ...ctx.args].flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

export function describeProposal(p: Proposal): string[] {
  const lines = [`${p.id}  ${p.kind.padEnd(7)} ${p.title}`, `    why: ${p.reason}`];
  for (const w of p.writes) lines.push(`    ${w.replaces ? 'rewrite' : 'write  '} ${w.path} (${w.text.length} chars)`);
  // The kept note goes to the trash only to be written again in place: it is listed as written, not as trashed.
  const written = new Set(p.writes.map((w) => w.path));
  for (const t of p.trash) if (!written.has(t)) lines.push(`    trash   ${t}`);
  for (const [a, b] of p.moves) lines.push(`    move    ${a} → ${b}`);
  for (const l of p.leftAlone ?? []) lines.push(`    left    ${l.path}: ${l.links} link${l.links === 1 ? '' : 's'} stay as written (${l.why}); fix by hand`);
  const edits = p.linkRewrites.reduce((n, r) => n + r.edits.length, 0);
  if (edits) lines.push(`    links   ${edits} in ${p.linkRewrites.length} note${p.linkRewrites.length === 1 ? '' : 's'}: ${p.linkRewrites.slice(0, 3).map((r) => r.path).join(', ')}${p.linkRewrites.length > 3 ? ', …' : ''}`);
  return lines;
}

/** Who acts, for the vault's log: the person at the terminal. */
export const CLI_ACTOR = 'cli';

/**
 * Applies ids through the vault's engine (its live host, else the same host in this process). Here, Ctrl-C during an
 * apply lets it finish (a note half merged helps no one); the ids after it are not applied.
 */
export async function applyIds(cc: CommandContext, ids: string[]): Promise<ApplyOutcome[]> {
  const applyGuard: ApplyGuard | undefined = cc.interrupt
    ? (id, later, run) => cc.interrupt!.shield(`applying ${id}`, run, (ok: boolean) => `${id} ${ok ? 'was applied' : 'was not applied'}${later.length ? `; not applied: ${later.join(', ')}` : ''}`)
    : undefined;
  return (await callEngine(cc, 'curate.apply', { ids, actor: CLI_ACTOR }, { applyGuard })).result.applied;
}

/** Prints apply outcomes; exit code 1 if any failed. */
export function printApplied(cc: CommandContext, outcomes: ApplyOutcome[]): number {
  if (cc.global.json) {
    cc.stdout(JSON.stringify({ applied: outcomes }, null, 2));
    for (const o of outcomes) if (!o.ok) cc.stderr(`${o.id}: not applied: ${o.error}`);
  }
  else {
    for (const o of outcomes) {
      if (!o.ok) {
        cc.stdout(`${o.id}: not applied: ${o.error}`);
        continue;
      }
      const r = o.result!;
      cc.stdout(`${o.id}: applied ${r.title}${r.resumed ? ' (finished an apply that was interrupted)' : ''}`);
      for (const w of r.wrote) cc.stdout(`    wrote   ${w}`);
      // A note rewritten in place keeps its old text in the trash: it is listed as written, not as trashed.
      for (const t of r.trashed) if (!r.wrote.includes(t)) cc.stdout(`    trashed ${t}`);
      for (const l of r.leftAlone ?? []) cc.stdout(`    left    ${l.path}: ${l.links} link${l.links === 1 ? '' : 's'} still point at the old note (${l.why}); fix by hand`);
      for (const [a, b] of r.moved) cc.stdout(`    moved   ${a} → ${b}`);
      if (r.relinked.length) cc.stdout(`    links rewritten in ${r.relinked.length} note${r.relinked.length === 1 ? '' : 's'}`);
      cc.stdout(`    logged in ${r.logPath}`);
    }
  }
  return outcomes.every((o) => o.ok) ? 0 : 1;
}
