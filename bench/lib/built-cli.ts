// The built CLI a bench times: present, and not older than the sources it is built from (a build left from before a
// pull or a merge times yesterday's code; the figures would be silently wrong).
import fs from 'node:fs';
import path from 'node:path';
import { cliPath } from '../../tests/helpers/cli.js';
import { repoRoot } from '../../tests/helpers/shared.js';

function newest(dir: string, ext: RegExp): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && ext.test(e.name)) t = Math.max(t, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return t;
}

/** `cli` (the built entry by default), or an error saying to build: missing, or older than a source file. */
export function builtCli(cli = cliPath): string {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  if (cli !== cliPath) return cli;
  const source = Math.max(newest(path.join(repoRoot, 'src'), /\.ts$/), newest(path.join(repoRoot, 'sidecar'), /\.ts$/));
  const built = newest(path.join(repoRoot, 'dist'), /\.mjs$/);
  if (built < source) throw new Error(`${path.dirname(cli)} is older than the sources: run \`npm run build\` first (a bench of an old build times old code)`);
  return cli;
}
