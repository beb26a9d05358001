// The `engram` command line: options, dispatch, Ctrl-C, and errors as one line (never a stack trace).
import { commands } from './commands.js';
import { formatOptions, parseArgs } from './args.js';
import { EngramError } from '../../src/core/errors.js';
import { didYouMean } from '../../src/core/suggest.js';
import { entryContext, failureLine, lineWriter } from './entry-context.js';
import { handleInterrupts, Interrupted, INTERRUPTED_EXIT, type InterruptHandler } from './interrupt.js';
import type { CommandContext, CommandDefinition, CommandEntry, GlobalOption, OptionSpec } from './types.js';
import { version } from '../../package.json';

/** Options some commands take: each command's help lists, and its parser accepts, only those it declares. */
const globalOptions: Record<GlobalOption, OptionSpec> = {
  vault: { type: 'string', valueName: '<path>', description: 'Vault to use (else ENGRAM_VAULT, .claude/engram.local.json, config)' },
  json: { type: 'boolean', description: 'Print machine-readable JSON' },
};
const helpOption: OptionSpec = { type: 'boolean', short: 'h', description: 'Show this help' };

const globalsOf = (entry: CommandEntry): GlobalOption[] => entry.globals ?? ['vault', 'json'];

/** Every option `engram <command>` accepts: its own, the global ones it declares, and --help. */
export function acceptedOptions(entry: CommandEntry, def: CommandDefinition): Record<string, OptionSpec> {
  const globals = Object.fromEntries(globalsOf(entry).map((g) => [g, globalOptions[g]]));
  return { ...(def.options ?? {}), ...globals, help: helpOption };
}

/** ` Did you mean \`engram status\`?` for a mistyped command, or empty. */
function meant(typed: string, prefix: string): string {
  const m = didYouMean(typed, commands.map((c) => c.name));
  return m ? ` Did you mean \`${prefix} ${m}\`?` : '';
}

function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `engram ${version}: durable memory for coding agents, kept in your Obsidian vault`,
    '',
    'Usage: engram <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    formatOptions({ help: { type: 'boolean', short: 'h', description: 'Show this help' }, version: { type: 'boolean', short: 'v', description: 'Print the version' } }),
    '',
    'Run `engram <command> --help` for a command\'s options (most take --vault <path> and --json).',
    'State lives in $ENGRAM_HOME (default ~/.engram).',
  ].join('\n');
}

export function commandHelp(entry: CommandEntry, def: CommandDefinition): string {
  const parts = [`Usage: engram ${def.usage}`, '', def.description, '', 'Options:', formatOptions(acceptedOptions(entry, def))];
  if (def.details) parts.push('', def.details);
  return parts.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const out = lineWriter(process.stdout);
  const err = lineWriter(process.stderr);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const target = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    if (name === 'help' && rest[0] !== undefined && !target) {
      err(`engram help: unknown command "${rest[0]}".${meant(rest[0], 'engram help')} Run \`engram --help\` for the list.`);
      return 1;
    }
    if (target) out(commandHelp(target, (await target.load()).command));
    else out(mainHelp());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    out(version);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    err(`engram: unknown command "${name}".${meant(name, 'engram')} Run \`engram --help\` for the list.`);
    return 1;
  }
  let def: CommandDefinition | undefined;
  let interrupts: InterruptHandler | undefined;
  try {
    def = (await entry.load()).command;
    const accepted = acceptedOptions(entry, def);
    const parsed = parseArgs(rest, accepted, (option) => (Object.hasOwn(globalOptions, option) ? `--${option} does not apply to \`engram ${name}\`` : undefined));
    if (parsed.options.help) {
      out(commandHelp(entry, def));
      return 0;
    }
    if (!entry.ownSignals) interrupts = handleInterrupts(name, err);
    const stderr = process.stderr;
    const ctx: CommandContext = {
      ...entryContext(parsed.positionals, parsed.options.vault as string | undefined, out, err),
      options: parsed.options,
      global: { vault: parsed.options.vault as string | undefined, json: Boolean(parsed.options.json) },
      terminal: stderr.isTTY ? { write: (raw) => void (stderr.writable && stderr.write(raw)), columns: () => stderr.columns || 80 } : undefined,
      interrupt: interrupts,
    };
    return await def.run(ctx);
  } catch (e) {
    if (e instanceof Interrupted && interrupts) {
      err(interrupts.cancelled());
      return INTERRUPTED_EXIT;
    }
    err(failureLine(name, e));
    if (e instanceof EngramError && e.code === 'usage' && def) err(`Usage: engram ${def.usage}`);
    else if (!(e instanceof EngramError) && process.env.ENGRAM_DEBUG) err(String((e as Error)?.stack));
    return 1;
  } finally {
    interrupts?.dispose();
  }
}
