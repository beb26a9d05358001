// The command context of a single-file entry (dist/engram-hook.mjs, dist/engram-host.mjs): what the CLI's app.ts
// gives a command, for one command run without the CLI's table of commands.
import { hostFacts } from '../hosting/facts.js';
import { loadConfig } from '../hosting/config-file.js';
import { readStdinText } from './stdin.js';
import type { CommandContext } from './types.js';

export function entryContext(args: string[], vault: string | undefined, stdout: (text: string) => void, stderr: (text: string) => void): CommandContext {
  const facts = hostFacts(process.env);
  return {
    args,
    options: {},
    global: { vault, json: false },
    env: process.env,
    facts,
    // The entry's reader of config.json (only entry points read it).
    configFile: () => loadConfig(facts),
    config: () => loadConfig(facts).config,
    cwd: process.cwd(),
    stdout,
    stderr,
    isTTY: Boolean(process.stdout.isTTY),
    readStdin: readStdinText,
  };
}
