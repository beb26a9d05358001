// Every `engram` subcommand, registered in one place. Modules load lazily so that the hook and
// MCP entry points never pull in the engine, the index or the model.
import type { CommandEntry } from './types.js';

export const commands: CommandEntry[] = [
  { name: 'serve', summary: 'Run, start or stop the background host for a vault', load: () => import('./commands/serve.js') },
  { name: 'mcp', summary: 'Serve the memory tools to an agent over MCP (stdio)', load: () => import('./commands/mcp.js') },
  { name: 'extract', summary: 'Extract what is worth keeping from an agent transcript into the vault', load: () => import('./commands/extract.js') },
  { name: 'import', summary: 'Extract every conversation of a Claude.ai or ChatGPT export (resumable)', load: () => import('./commands/import.js') },
  { name: 'hook', summary: 'Handle a Claude Code hook event (stdin JSON; always exits 0)', load: () => import('./commands/hook.js') },
  { name: 'parse', summary: 'Show what Engram reads from a transcript: turns, signals, windows, redactions, damage', load: () => import('./commands/parse.js') },
  { name: 'review', summary: 'Review working memory that is due: promote, extend or delete (proposals, applied by id)', load: () => import('./commands/review.js') },
  { name: 'restructure', summary: 'Propose merges, hub notes and splits; apply one by id (links rewritten, originals to trash)', load: () => import('./commands/restructure.js') },
  { name: 'maintain', summary: 'Archive notes past forget_after; list stale notes, orphans and possible duplicates', load: () => import('./commands/maintain.js') },
  { name: 'forget', summary: 'Move a wrong note out of recall into the archive (recoverable, logged)', load: () => import('./commands/forget.js') },
];
