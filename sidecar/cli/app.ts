// The `engram` command line: global options, dispatch, and errors as one line (never a stack trace).
import { commands } from './commands.js';
import { formatOptions, parseArgs } from './args.js';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import type { CommandContext, CommandDefinition, OptionSpec } from './types.js';
import { version } from '../../package.json';

const globalOptions: Record<string, OptionSpec> = {
  vault: { type: 'string', valueName: '<path>', description: 'Vault to use (else ENGRAM_VAULT, .claude/engram.local.json, config)' },
  json: { type: 'boolean', description: 'Print machine-readable JSON' },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
};

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
    'Global options:',
    formatOptions({ ...globalOptions, version: { type: 'boolean', description: 'Print the version' } }),
    '',
    'Run `engram <command> --help` for a command\'s options.',
    'State lives in $ENGRAM_HOME (default ~/.engram).',
  ].join('\n');
}

function commandHelp(name: string, def: CommandDefinition): string {
  const parts = [`Usage: engram ${def.usage}`, '', def.description];
  if (def.options && Object.keys(def.options).length) parts.push('', 'Options:', formatOptions(def.options));
  parts.push('', 'Global options:', formatOptions(globalOptions));
  if (def.details) parts.push('', def.details);
  return parts.join('\n');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function main(argv: string[]): Promise<number> {
  const out = (t: string) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`);
  const err = (t: string) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const target = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    if (target) out(commandHelp(target.name, (await target.load()).command));
    else out(mainHelp());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    out(version);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    err(`engram: unknown command "${name}". Run \`engram --help\` for the list.`);
    return 1;
  }
  let def: CommandDefinition | undefined;
  try {
    def = (await entry.load()).command;
    const parsed = parseArgs(rest, { ...globalOptions, ...(def.options ?? {}) });
    if (parsed.options.help) {
      out(commandHelp(entry.name, def));
      return 0;
    }
    const ctx: CommandContext = {
      args: parsed.positionals,
      options: parsed.options,
      global: { vault: parsed.options.vault as string | undefined, json: Boolean(parsed.options.json) },
      env: process.env,
      cwd: process.cwd(),
      stdout: out,
      stderr: err,
      isTTY: Boolean(process.stdout.isTTY),
      readStdin,
    };
    return await def.run(ctx);
  } catch (e) {
    if (e instanceof EngramError) {
      err(`engram ${name}: ${e.message}${e.hint ? `\n  ${e.hint}` : ''}`);
      if (e.code === 'usage' && def) err(`Usage: engram ${def.usage}`);
    } else {
      err(`engram ${name}: unexpected error: ${errorMessage(e)}`);
      if (process.env.ENGRAM_DEBUG) err(String((e as Error)?.stack));
    }
    return 1;
  }
}
