// `engram restructure`: proposals to merge notes that say the same thing, gather larger clusters under a hub
// note, and split notes that grew too large. Runs only when asked; nothing changes until a proposal is applied.
import { loadCatalog, type NoteCatalog } from '../../../src/core/curate/catalog.js';
import { duplicateAsMerge, isDuplicateId, listDuplicates } from '../../../src/core/curate/duplicates.js';
import { curatable } from '../../../src/core/curate/merge-candidates.js';
import { pruneExpired } from '../../../src/core/curate/proposals.js';
import { planRestructure } from '../../../src/core/curate/restructure.js';
import { EngramError } from '../../../src/core/errors.js';
import { hostFacts } from '../../host/facts.js';
import { noteVectors, openCurateHost } from '../../host/curate-host.js';
import { applyAll, applyIds, describeProposal } from '../curate-output.js';
import { forwardToHost } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'restructure [--folder <folder>] [--dry-run | --apply <id>…] [--threshold <0..1>] [--json]',
  description:
    'Find notes to merge (2–5 notes that are close in meaning AND share a tag or link), clusters to gather under a hub note (6 or more), and notes to split (large, with several top-level sections). Each proposal shows the exact text it would write, the notes it removes and the links it rewrites; apply one by id. Locked notes are never part of a proposal.',
  options: {
    folder: { type: 'string', valueName: '<folder>', description: 'Only notes in this vault folder' },
    'dry-run': { type: 'boolean', description: 'List proposals only (the default)' },
    apply: { type: 'string', multiple: true, valueName: '<id>', description: 'Apply the proposal with this id (repeatable)' },
    threshold: { type: 'number', valueName: '<0..1>', description: 'Similarity for merge candidates (default 0.88)' },
    'show-text': { type: 'boolean', description: 'Print the full text each proposal would write' },
  },
  details: 'Examples:\n  engram restructure --folder Engram\n  engram restructure --apply 1a2b3c4d5e6f',
  async run(ctx) {
    const facts = hostFacts(ctx.env);
    const threshold = ctx.options.threshold as number | undefined;
    if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) throw new EngramError('usage', '--threshold must be between 0 and 1');
    // Applying writes the vault: a live host (its one writer) does it. Listing only reads, so it runs here.
    if (applyIds(ctx).length) {
      const forwarded = await forwardToHost(ctx, 'restructure');
      if (forwarded !== undefined) return forwarded;
    }
    const host = openCurateHost(facts, ctx.cwd, ctx.global.vault, 'cli', threshold !== undefined ? { mergeThreshold: threshold } : {});
    const ids = applyIds(ctx);
    if (ids.length) {
      let catalog: NoteCatalog | undefined;
      return applyAll(ctx, host.ctx, ids, async (id) => {
        if (!isDuplicateId(id)) return id;
        catalog ??= await loadCatalog(host.ctx.vault);
        const p = await duplicateAsMerge(host.state, host.proposalsDir, id, catalog, host.ctx.settings, host.ctx.clock.now());
        await host.ctx.store.save(p);
        return p.id;
      });
    }
    const folder = typeof ctx.options.folder === 'string' ? ctx.options.folder.replace(/^\/+|\/+$/g, '') : undefined;
    const now = host.ctx.clock.now();
    await pruneExpired(host.ctx.store, now);
    const started = Date.now();
    const catalog = await loadCatalog(host.ctx.vault);
    if (folder !== undefined && ![...catalog.notes.keys()].some((p) => p.startsWith(`${folder}/`))) {
      throw new EngramError('not-found', `no notes in folder ${folder}`);
    }
    const { vectors, kind } = await noteVectors(host, catalog, curatable(catalog, host.ctx.settings, folder));
    const plan = await planRestructure(catalog, host.ctx.settings, { vectors }, host.ctx.store, now, folder);
    const ms = Date.now() - started;
    const duplicates = await listDuplicates(host.state, host.proposalsDir, now);
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ vectors: kind, pairsCompared: plan.pairsCompared, notesConsidered: plan.notesConsidered, ms, proposals: plan.proposals, duplicates }, null, 2));
      return 0;
    }
    ctx.stdout(`${plan.notesConsidered} notes considered, ${plan.pairsCompared} pairs compared (${kind}), ${ms} ms. Nothing was changed.`);
    if (plan.proposals.length === 0) ctx.stdout('No merge, hub or split proposals.');
    for (const p of plan.proposals) {
      for (const line of describeProposal(p)) ctx.stdout(line);
      if (ctx.options['show-text']) for (const w of p.writes) ctx.stdout(`--- ${w.path}\n${w.text}---`);
    }
    for (const d of duplicates) ctx.stdout(`${d.id}  possible duplicate (from extraction): ${d.notes.map((n) => n.path).join(' ↔ ')}${d.reason ? `  (${d.reason})` : ''}; --apply merges them`);
    if (plan.proposals.length || duplicates.length) ctx.stdout('Apply one with `engram restructure --apply <id>` (proposals expire after 7 days).');
    return 0;
  },
};
