// The shape every `engram` subcommand has.

export interface OptionSpec {
  type: 'string' | 'boolean' | 'number';
  /** One-letter alias, e.g. `n` for `-n 10`. */
  short?: string;
  /** Collect every occurrence into an array. */
  multiple?: boolean;
  /** Shown in help, e.g. `<path>`. */
  valueName?: string;
  description: string;
}

export interface GlobalOptions {
  vault?: string;
  json: boolean;
}

export interface CommandContext {
  /** Positional arguments after the command name. */
  args: string[];
  options: Record<string, string | number | boolean | string[] | undefined>;
  global: GlobalOptions;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** Standard input as text (for hooks); only read when a command asks. */
  readStdin: () => Promise<string>;
}

export interface CommandDefinition {
  usage: string;
  description: string;
  options?: Record<string, OptionSpec>;
  /** Extra help text (examples). */
  details?: string;
  run(ctx: CommandContext): Promise<number>;
}

export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<{ command: CommandDefinition }>;
}
