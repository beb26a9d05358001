// `engram forget <note>`: a note that is wrong leaves recall at once: it moves to the archive folder (recoverable),
// and the change is logged. Locked notes are refused.
import { EngramError } from '../../../src/core/errors.js';
import { localCuration } from '../../hosting/curate-host.js';
import { callHost } from '../../client/forward.js';
import { CLI_ACTOR } from '../curate-output.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'forget <note> [--json]',
  description: 'Move a note that is wrong out of recall, into the archive folder (recoverable; logged in the vault). <note> is a vault path or a note title; a title that several notes share is refused with their paths, and a note Engram did not create needs its exact vault path.',
  async run(ctx) {
    const ref = ctx.args.join(' ').trim();
    if (!ref) throw new EngramError('usage', 'which note? give its title or vault path');
    // A live host is the vault's one writer: it archives the note and its index drops it at once. With none, the
    // same core service runs here. A person in a terminal may archive their own note by its exact path (byUser).
    const req = { actor: CLI_ACTOR, byUser: true };
    const r = (await callHost(ctx, 'forget', { ref, ...req }))?.result
      ?? (await localCuration(ctx.facts, ctx.cwd, ctx.global.vault, CLI_ACTOR).forget(ref, req));
    if (ctx.global.json) ctx.stdout(JSON.stringify({ moved: [[r.path, r.archivedTo]], relinked: r.relinked, log: r.log }, null, 2));
    else ctx.stdout(`Forgot ${r.path}: moved to ${r.archivedTo} (logged in ${r.log}).`);
    return 0;
  },
};
