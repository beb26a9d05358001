// `engram flagged`: the notes holding text addressed to an AI (issue 32), with what was found and where: the same list
// as the review pane's, from the live host (Engine.flagged) or, with none, read here from the vault's files.
import { DIRECTIVE_KINDS } from '../../../src/core/recall/directives.js';
import { flaggedNote, vetNote, type FlaggedNote } from '../../../src/core/recall/vet.js';
import { titleFromPath } from '../../../src/core/note/meta.js';
import { callHost } from '../../client/forward.js';
import { loadConfig } from '../../hosting/config-file.js';
import { NodeVault } from '../../hosting/node-vault.js';
import { VAULT_IGNORED_DIRS } from '../../hosting/paths.js';
import { requireVault } from '../../hosting/resolve.js';
import type { CommandContext, CommandDefinition } from '../types.js';

/** No host: every note of the vault read here, as the host's engine reads it (archive and change log left out). */
async function flaggedHere(ctx: CommandContext): Promise<FlaggedNote[]> {
  const v = requireVault(ctx.facts, ctx.cwd, ctx.global.vault);
  const { config } = loadConfig(ctx.facts);
  const trust = { outsideFolders: config.get('recall.outside_folders'), trustedFolders: config.get('recall.trusted_folders') };
  const skip = [...VAULT_IGNORED_DIRS, config.get('folders.archive'), config.get('folders.log')].map((f) => `${f}/`);
  const vault = new NodeVault(v.realPath);
  const out: FlaggedNote[] = [];
  const files = (await vault.list()).filter((f) => f.path.toLowerCase().endsWith('.md') && !skip.some((s) => f.path.startsWith(s)));
  for (const f of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const text = await vault.read(f.path).then((r) => r.text, () => undefined);
    const n = text === undefined ? null : flaggedNote(f.path, titleFromPath(f.path), vetNote(f.path, text, trust));
    if (n) out.push(n);
  }
  return out;
}

export const command: CommandDefinition = {
  usage: 'flagged [--json]',
  description:
    'List the notes that hold text addressed to an AI (orders to ignore instructions, run commands, reveal secrets; chat-role headers; hidden comments): never injected by the hooks, withheld from recall and read. Changes nothing.',
  options: {},
  details:
    'Each note says where the text is (a section, or the frontmatter) and whether the whole note or only that section is held back.\n' +
    'A note that is yours (a note about prompt injection, say): add `engram_trust: user` to its frontmatter, or click Mark as mine in the review pane.',
  async run(ctx) {
    const notes = (await callHost(ctx, 'flagged', {}))?.result.notes ?? (await flaggedHere(ctx));
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
