// `engram forget <note>`: a note that is wrong leaves recall at once: it moves to the archive folder (recoverable),
// and the change is logged. Locked notes are refused.
import { EngramError } from '../../../src/core/errors.js';
import { callEngine } from '../../client/forward.js';
import { CLI_ACTOR } from '../curate-output.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'forget <note> [--json]',
  description: 'Move a note that is wrong out of recall, into the archive folder (recoverable; logged in the vault). <note> is a vault path or a note title; a title that several notes share is refused with their paths, and a note Engram did not create needs its exact vault path.',
  async run(ctx) {
    const ref = ctx.args.join(' ').trim();
    if (!ref) throw new EngramError('usage', 'which note? give its title or vault path');
    // The vault's engine (its live host, else the same host here) archives the note and its index drops it at once.
    // A person in a terminal may archive their own note by its exact path (byUser).
    const r = (await callEngine(ctx, 'forget', { ref, actor: CLI_ACTOR, byUser: true })).result;
    if (ctx.global.json) ctx.stdout(JSON.stringify({ moved: [[r.path, r.archivedTo]], relinked: r.relinked, log: r.log }, null, 2));
    else ctx.stdout(`Forgot ${r.path}: moved to ${r.archivedTo} (logged in ${r.log}).`);
    return 0;
  },
};
