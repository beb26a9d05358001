// Shared by `engram review`, `restructure`, `maintain` and `forget`: option parsing and how proposals print.
import { applyProposal, type ApplyResult, type CurateContext } from '../../src/core/curate/apply.js';
import type { Proposal } from '../../src/core/curate/proposals.js';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import type { CommandContext } from './types.js';

/** Ids given with `--apply <id>` (repeatable) plus any positionals after it. */
export function applyIds(ctx: CommandContext): string[] {
  const opt = ctx.options.apply;
  const list = Array.isArray(opt) ? opt : typeof opt === 'string' ? [opt] : [];
  if (list.length === 0) return [];
  if (ctx.options['dry-run']) throw new EngramError('usage', '--dry-run and --apply cannot be used together');
  return [...list, ...ctx.args].flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

export function describeProposal(p: Proposal): string[] {
  const lines = [`${p.id}  ${p.kind.padEnd(7)} ${p.title}`, `    why: ${p.reason}`];
  for (const w of p.writes) lines.push(`    ${w.replaces ? 'rewrite' : 'write  '} ${w.path} (${w.text.length} chars)`);
  for (const t of p.trash) lines.push(`    trash   ${t}`);
  for (const [a, b] of p.moves) lines.push(`    move    ${a} → ${b}`);
  const edits = p.linkRewrites.reduce((n, r) => n + r.edits.length, 0);
  if (edits) lines.push(`    links   ${edits} in ${p.linkRewrites.length} note${p.linkRewrites.length === 1 ? '' : 's'}: ${p.linkRewrites.slice(0, 3).map((r) => r.path).join(', ')}${p.linkRewrites.length > 3 ? ', …' : ''}`);
  return lines;
}

export interface ApplyOutcome {
  id: string;
  ok: boolean;
  error?: string;
  result?: Omit<ApplyResult, 'proposal'> & { kind: string; title: string };
}

/** Applies each id in turn; one refused proposal does not stop the others. Exit code 1 if any failed. */
export async function applyAll(cc: CommandContext, ctx: CurateContext, ids: string[], resolve?: (id: string) => Promise<string>): Promise<number> {
  const outcomes: ApplyOutcome[] = [];
  for (const [i, id] of ids.entries()) {
    try {
      // Some ids name records that become a proposal only now (extraction's possible duplicates).
      const real = resolve ? await resolve(id) : id;
      // Ctrl-C during an apply lets it finish (a note half merged helps no one); the ids after it are not applied.
      const later = ids.slice(i + 1);
      const after = (ok: boolean) => `${id} ${ok ? 'was applied' : 'was not applied'}${later.length ? `; not applied: ${later.join(', ')}` : ''}`;
      const r = await (cc.interrupt ? cc.interrupt.shield(`applying ${id}`, () => applyProposal(ctx, real), after) : applyProposal(ctx, real));
      const { proposal, ...rest } = r;
      outcomes.push({ id, ok: true, result: { ...rest, kind: proposal.kind, title: proposal.title } });
    } catch (e) {
      if (!(e instanceof EngramError)) throw e;
      outcomes.push({ id, ok: false, error: `${errorMessage(e)}${e.hint ? ` (${e.hint})` : ''}` });
    }
  }
  if (cc.global.json) {
    cc.stdout(JSON.stringify({ applied: outcomes }, null, 2));
    // Callers of --json (the MCP bridge) report the first stderr line when the exit code is 1.
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
      for (const t of r.trashed) cc.stdout(`    trashed ${t}`);
      for (const [a, b] of r.moved) cc.stdout(`    moved   ${a} → ${b}`);
      if (r.relinked.length) cc.stdout(`    links rewritten in ${r.relinked.length} note${r.relinked.length === 1 ? '' : 's'}`);
      cc.stdout(`    logged in ${r.logPath}`);
    }
  }
  return outcomes.every((o) => o.ok) ? 0 : 1;
}
