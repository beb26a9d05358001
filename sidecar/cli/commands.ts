// Every `engram` subcommand, registered in one place. Modules load lazily so that the hook and
// MCP entry points never pull in the engine, the index or the model.
import type { CommandEntry } from './types.js';

export const commands: CommandEntry[] = [
];
