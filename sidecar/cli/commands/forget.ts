// `engram forget <note>`: a note that is wrong leaves recall at once: it moves to the archive folder (recoverable),
// and the change is logged. Locked notes are refused.
import { Curation } from '../../../src/core/curate/service.js';
import { EngramError } from '../../../src/core/errors.js';
import { hostFacts } from '../../host/facts.js';
import { openCurateHost } from '../../host/curate-host.js';
import { forwardToHost } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'forget <note> [--json]',
  description: 'Move a note that is wrong out of recall, into the archive folder (recoverable; logged in the vault). <note> is a vault path or a note title; a title that several notes share is refused with their paths, and a note Engram did not create needs its exact vault path.',
  async run(ctx) {
    const ref = ctx.args.join(' ').trim();
    if (!ref) throw new EngramError('usage', 'which note? give its title or vault path');
    // A live host is the vault's one writer: it archives the note and its index drops it at once.
    const forwarded = await forwardToHost(ctx, 'forget');
    if (forwarded !== undefined) return forwarded;
    const host = openCurateHost(hostFacts(ctx.env), ctx.cwd, ctx.global.vault, 'cli');
    // The same service the host's MCP `forget` uses: archive move, log entry, recall statistics follow the note.
    const curation = new Curation({ vault: host.ctx.vault, state: host.state, vaultKey: host.vaultKey, settings: host.ctx.settings, clock: host.ctx.clock });
    const r = await curation.forget(ref, { byUser: true });
    if (ctx.global.json) ctx.stdout(JSON.stringify({ moved: r.moved, relinked: r.relinked, log: r.logPath }, null, 2));
    else for (const [from, to] of r.moved) ctx.stdout(`Forgot ${from}: moved to ${to} (logged in ${r.logPath}).`);
    return 0;
  },
};
