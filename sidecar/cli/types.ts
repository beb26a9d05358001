// The shape every `engram` subcommand has.
import type { InterruptControl } from './interrupt.js';
import type { HostFacts } from '../../src/core/state.js';
import type { ConfigReader, LoadedConfig } from '../hosting/config-file.js';

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
  /** Where the CLI runs (platform, home, the environment), read once by the entry point. */
  facts: HostFacts;
  /**
   * config.json as it is now, with its file and problems: the entry point's reader (only entry points read the
   * configuration; a command calls this once and passes what it needs down). Throws when the file is broken and no
   * last good copy exists, so a command that does not need it never fails on it.
   */
  configFile: () => LoadedConfig;
  /** The effective configuration as it is now (`configFile().config`). */
  config: ConfigReader;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** Standard input as text (for hooks); only read when a command asks. */
  readStdin: () => Promise<string>;
  /** Raw stderr when it is a terminal (progress redrawn in place); absent elsewhere (a pipe, the host). */
  terminal?: Terminal;
  /** Ctrl-C: what an interruption leaves behind, and work it must not cut (absent in the host). */
  interrupt?: InterruptControl;
}

export interface CommandDefinition {
  usage: string;
  description: string;
  options?: Record<string, OptionSpec>;
  /** Extra help text (examples). */
  details?: string;
  run(ctx: CommandContext): Promise<number>;
}

/** The options every command may take, each where it means something. */
export type GlobalOption = 'vault' | 'json';

export interface CommandEntry {
  name: string;
  summary: string;
  /** Which of --vault and --json the command takes (help lists only these; others are refused). Default: both. */
  globals?: GlobalOption[];
  /** The command handles Ctrl-C itself (a server shutting down cleanly), or must keep Node's default. */
  ownSignals?: boolean;
  load: () => Promise<{ command: CommandDefinition }>;
}

/** The terminal's raw stderr (no newline added), when stderr is a terminal. */
export interface Terminal {
  write(raw: string): void;
  columns(): number;
}
