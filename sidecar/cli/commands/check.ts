// `engram check`: reads every note of a vault and reports invalid frontmatter (`path:line: message`) with totals.
// With --roundtrip it also edits one existing key and adds one key in memory in every valid note, and reports each
// note where the result differs anywhere else. It writes nothing; it exits 0 whenever it ran.
import fs from 'node:fs';
import path from 'node:path';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { roundtripCheck } from '../../../src/core/note/roundtrip.js';
import { errorMessage } from '../../../src/core/errors.js';
import { NodeVault } from '../../hosting/node-vault.js';
import { requireVault } from '../../hosting/resolve.js';
import type { CommandDefinition } from '../types.js';
import { count } from '../../../src/core/plural.js';

interface Finding {
  path: string;
  line?: number;
  message: string;
}


export const command: CommandDefinition = {
  usage: 'check [--vault <path>] [--roundtrip] [--json]',
  description: 'Check every note\'s frontmatter; with --roundtrip, also prove in memory that edits touch only their own lines.',
  options: {
    roundtrip: { type: 'boolean', description: 'Edit one key and add one key in memory in every valid note and report side effects' },
  },
  details: 'Writes nothing. Exit status 0 whenever the check ran, whatever it found.',
  async run(ctx) {
    const started = Date.now();
    const v = requireVault(ctx.facts, ctx.cwd, ctx.global.vault, ctx.config);
    const vault = new NodeVault(v.realPath);
    const files = (await vault.listPaths()).map((p) => ({ path: p }));
    const invalid: Finding[] = [];
    const unreadable: Finding[] = [];
    const sideEffects: Finding[] = [];
    let withFrontmatter = 0;
    let roundtripped = 0;
    // Synchronous reads: a one-shot scan of thousands of small files spends less time in them than in promise plumbing.
    for (const f of files) {
      let text: string;
      try {
        text = fs.readFileSync(path.join(v.realPath, ...f.path.split('/')), 'utf8');
      } catch (e) {
        unreadable.push({ path: f.path, message: `cannot read: ${errorMessage(e)}` });
        continue;
      }
      if (ctx.options.roundtrip) {
        const r = roundtripCheck(text);
        if (r.status === 'invalid') invalid.push({ path: f.path, line: r.line, message: r.message });
        else {
          roundtripped++;
          if (r.status === 'changed-elsewhere') sideEffects.push({ path: f.path, message: r.message });
        }
        if (r.status !== 'invalid' && text.replace(/^\uFEFF/, '').startsWith('---')) withFrontmatter++;
        continue;
      }
      const note = parseNote(text);
      if (note.problem) invalid.push({ path: f.path, line: note.problem.line, message: note.problem.message });
      else if (note.block) withFrontmatter++;
    }
    const byPath = (a: Finding, b: Finding) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    invalid.sort(byPath);
    sideEffects.sort(byPath);
    unreadable.sort(byPath);
    const seconds = (Date.now() - started) / 1000;
    const checked = files.length - unreadable.length;
    if (ctx.global.json) {
      ctx.stdout(
        JSON.stringify(
          {
            vault: v.realPath,
            notes: files.length,
            valid: checked - invalid.length,
            withFrontmatter,
            invalid,
            unreadable,
            ...(ctx.options.roundtrip ? { roundtrip: { edited: roundtripped, sideEffects } } : {}),
            seconds,
          },
          null,
          2,
        ),
      );
      return 0;
    }
    for (const f of invalid) ctx.stdout(`${f.path}:${f.line}: ${f.message}`);
    for (const f of unreadable) ctx.stdout(`${f.path}: ${f.message}`);
    for (const f of sideEffects) ctx.stdout(`${f.path}: ${f.message}`);
    const parts = [`${count(files.length, 'note')} checked in ${v.realPath}`, `${checked - invalid.length} valid (${withFrontmatter} with frontmatter)`, `${invalid.length} with invalid frontmatter`];
    if (unreadable.length) parts.push(`${unreadable.length} unreadable`);
    ctx.stdout(`${parts.join(', ')} (${seconds.toFixed(1)} s)`);
    if (ctx.options.roundtrip) ctx.stdout(`round trip: ${roundtripped} notes edited in memory, ${sideEffects.length} with changes outside the edited keys; nothing written`);
    return 0;
  },
};
