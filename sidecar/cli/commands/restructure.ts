// `engram restructure`: proposals to merge notes that say the same thing, gather larger clusters under a hub
// note, and split notes that grew too large. Runs only when asked; nothing changes until a proposal is applied.
import { EngramError } from '../../../src/core/errors.js';
import { applyIds, CLI_ACTOR, describeProposal, idsToApply, printApplied } from '../curate-output.js';
import { callEngine } from '../../client/forward.js';
import { stepProgress } from '../progress.js';
import { backendOption } from './extract.js';
import type { CommandDefinition } from '../types.js';
import { count } from '../../../src/core/plural.js';

export const command: CommandDefinition = {
  usage: 'restructure [--folder <folder>] [--dry-run | --apply <id>… | --reject <id>…] [--threshold <0..1>] [--backend <name>] [--json]',
  description:
    'Find notes to merge (2–5 notes that are close in meaning AND share a tag or link), clusters to gather under a hub note (6 or more), and notes to split (large, with several top-level sections). Each proposal shows the exact text it would write, the notes it removes and the links it rewrites; apply one by id. Locked notes are never part of a proposal.',
  options: {
    folder: { type: 'string', valueName: '<folder>', description: 'Only notes in this vault folder' },
    'dry-run': { type: 'boolean', description: 'List proposals only (the default)' },
    apply: { type: 'string', multiple: true, valueName: '<id>', description: 'Apply the proposal with this id (repeatable)' },
    reject: { type: 'string', multiple: true, valueName: '<id>', description: 'Reject the proposal with this id: not proposed again until one of its notes changes (repeatable)' },
    threshold: { type: 'number', valueName: '<0..1>', description: 'Similarity for merge candidates (default 0.88)' },
    'show-text': { type: 'boolean', description: 'Print the full text each proposal would write' },
    backend: { type: 'string', valueName: '<name>', description: "LLM backend that writes each merge as one note from the notes' own sentences (checked; else the rule merge)" },
  },
  details: 'Examples:\n  engram restructure --folder Engram\n  engram restructure --apply 1a2b3c4d5e6f',
  async run(ctx) {
    const threshold = ctx.options.threshold as number | undefined;
    if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) throw new EngramError('usage', '--threshold must be between 0 and 1');
    // The vault's engine plans and applies: its live host (the vault's one writer), else the same host here.
    const rejects = ([] as unknown[]).concat(ctx.options.reject ?? []).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
    if (rejects.length) {
      const done = (await callEngine(ctx, 'curate.reject', { ids: rejects, actor: CLI_ACTOR })).result.rejected;
      for (const id of rejects) ctx.stdout(done.includes(id) ? `${id}  rejected: not proposed again until one of its notes changes` : `${id}  no such proposal (plan again to list current ones)`);
      return done.length === rejects.length ? 0 : 1;
    }
    const ids = idsToApply(ctx);
    if (ids.length) return printApplied(ctx, await applyIds(ctx, ids));
    const folder = typeof ctx.options.folder === 'string' ? ctx.options.folder : undefined;
    const backend = backendOption(ctx);
    const req = { actor: CLI_ACTOR, folder, threshold, ...(backend ? { backend } : {}) };
    const steps = stepProgress(ctx);
    const plan = await callEngine(ctx, 'restructure.plan', req, { onProgress: steps?.show }).then((r) => r.result).finally(() => steps?.done());
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify(plan, null, 2));
      return 0;
    }
    ctx.stdout(`${count(plan.notesConsidered, 'note')} considered, ${count(plan.pairsCompared, 'pair')} compared (${plan.vectors}), ${plan.ms} ms. Nothing was changed.${plan.rejected ? ` ${plan.rejected} rejected before and left out.` : ''}`);
    if (plan.proposals.length === 0) ctx.stdout('No merge, hub or split proposals.');
    for (const p of plan.proposals) {
      for (const line of describeProposal(p)) ctx.stdout(line);
      if (ctx.options['show-text']) for (const w of p.writes) ctx.stdout(`--- ${w.path}\n${w.text}---`);
    }
    for (const d of plan.duplicates) ctx.stdout(`${d.id}  possible duplicate (from extraction): ${d.notes.map((n) => n.path).join(' ↔ ')}${d.reason ? `  (${d.reason})` : ''}; --apply merges them`);
    if (plan.proposals.length || plan.duplicates.length) ctx.stdout('Apply one with `engram restructure --apply <id>` (proposals expire after 7 days).');
    return 0;
  },
};
