// `engram flagged`: the notes holding text addressed to an AI (issue 32), with what was found and where: the same list
// as the review pane's, from the vault's engine (Engine.flagged): its live host, else the same host in this process.
import { DIRECTIVE_KINDS } from '../../../src/core/recall/directives.js';
import { callEngine } from '../../client/forward.js';
import type { CommandDefinition } from '../types.js';

export const command: CommandDefinition = {
  usage: 'flagged [--json]',
  description:
    'List the notes that hold text addressed to an AI (orders to ignore instructions, run commands, reveal secrets; chat-role headers; hidden comments): never injected by the hooks, withheld from recall and read. Changes nothing.',
  options: {},
  details:
    'Each note says where the text is (a section, or the frontmatter) and whether the whole note or only that section is held back.\n' +
    'A note that is yours (a note about prompt injection, say): add `engram_trust: user` to its frontmatter, or click Mark as mine in the review pane.',
  async run(ctx) {
    const { notes } = (await callEngine(ctx, 'flagged', {})).result;
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ notes }, null, 2));
      return 0;
    }
    if (!notes.length) {
      ctx.stdout('No note holds text addressed to an AI.');
      return 0;
    }
    ctx.stdout(`${notes.length} note${notes.length === 1 ? '' : 's'} hold${notes.length === 1 ? 's' : ''} text addressed to an AI (never injected; withheld from recall and read):`);
    for (const n of notes) {
      ctx.stdout(`- ${n.path}${n.trust === 'outside' ? ' (outside text)' : ''}: ${n.whole ? 'the whole note is held back' : 'these sections are held back, the rest is recalled'}`);
      for (const f of n.found) ctx.stdout(`    ${f.heading === undefined ? 'frontmatter or across sections' : f.heading ? `§ ${f.heading}` : 'its text'}, ${DIRECTIVE_KINDS[f.kind]}: "${f.excerpt}"`);
    }
    ctx.stdout('If a note is yours, add `engram_trust: user` to its frontmatter (or click Mark as mine in the review pane).');
    return 0;
  },
};
