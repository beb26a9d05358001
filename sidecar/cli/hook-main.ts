// `engram hook <Event>` as one self-contained file (dist/engram-hook.mjs): a hook runs on every prompt, and one
// file loads faster than the split CLI's chunks. main.ts hands `hook` invocations here; the result is the same.
import { command } from './commands/hook.js';
import { entryContext } from './entry-context.js';

export async function runHookEntry(argv: string[]): Promise<number> {
  // argv: <Event> [--vault <path>] (anything else is ignored: a hook never fails on its arguments).
  let vault: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--vault') vault = argv[++i];
    else if (argv[i].startsWith('--vault=')) vault = argv[i].slice('--vault='.length);
    else if (!argv[i].startsWith('-')) rest.push(argv[i]);
  }
  return command.run(entryContext(rest, vault, (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`), () => {}));
}

const code = await runHookEntry(process.argv.slice(process.argv[2] === 'hook' ? 3 : 2)).catch(() => 0);
process.exitCode = code;
