// Every `engram` subcommand, registered in one place. Modules load lazily so that the hook and
// MCP entry points never pull in the engine, the index or the model.
import type { CommandEntry } from './types.js';

export const commands: CommandEntry[] = [
  { name: 'configure', summary: 'Show the effective configuration and where each value comes from, or set one key', globals: ['vault', 'json'], load: () => import('./commands/configure.js') },
  { name: 'check', summary: 'Check every note\'s frontmatter (invalid YAML with path:line); --roundtrip proves edits stay local', globals: ['vault', 'json'], load: () => import('./commands/check.js') },
  { name: 'serve', summary: 'Run, start or stop the background host for a vault', globals: ['vault'], ownSignals: true, load: () => import('./commands/serve.js') },
  { name: 'mcp', summary: 'Serve the memory tools to an agent over MCP (stdio)', globals: ['vault'], ownSignals: true, load: () => import('./commands/mcp.js') },
  { name: 'extract', summary: 'Extract what is worth keeping from an agent transcript into the vault', globals: ['vault', 'json'], load: () => import('./commands/extract.js') },
  { name: 'import', summary: 'Extract every conversation of a Claude.ai or ChatGPT export (resumable)', globals: ['vault', 'json'], load: () => import('./commands/import.js') },
  { name: 'status', summary: 'Show the host, queue, index, recent runs and budget', globals: ['vault', 'json'], load: () => import('./commands/status.js') },
  { name: 'activity', summary: 'What Engram saw, captured and injected per session (notes, why, tokens, failures)', globals: ['vault', 'json'], load: () => import('./commands/activity.js') },
  { name: 'stats', summary: 'The dashboard in the terminal: captures, injected tokens per day and session, notes, backlog', globals: ['vault', 'json'], load: () => import('./commands/stats.js') },
  { name: 'setup', summary: 'Set Engram up: vault, config, hooks + MCP, index, backlog (no API key needed)', globals: ['vault', 'json'], load: () => import('./commands/setup.js') },
  { name: 'backfill', summary: 'Extract existing transcripts with the LLM backend (estimate first; --yes to queue)', globals: ['vault'], load: () => import('./commands/backfill.js') },
  { name: 'install', summary: 'Register the hooks and MCP server with Claude Code (or Codex)', globals: ['json'], load: () => import('./commands/install.js') },
  { name: 'uninstall', summary: 'Remove what install registered (--purge: also $ENGRAM_HOME)', globals: [], load: () => import('./commands/uninstall.js') },
  { name: 'doctor', summary: 'Check the installation; one line per check with a fix', globals: ['vault', 'json'], load: () => import('./commands/doctor.js') },
  { name: 'embed-server', summary: 'Serve embeddings over stdio (newline JSON-RPC) for the Obsidian plugin', globals: [], ownSignals: true, load: () => import('./commands/embed-server.js') },
  { name: 'hook', summary: 'Handle a Claude Code hook event (stdin JSON; always exits 0)', globals: ['vault'], ownSignals: true, load: () => import('./commands/hook.js') },
  { name: 'parse', summary: 'Show what Engram reads from a transcript: turns, signals, windows, redactions, damage', globals: ['json'], load: () => import('./commands/parse.js') },
  { name: 'review', summary: 'Review working memory that is due: promote, extend or delete (proposals, applied by id)', globals: ['vault', 'json'], load: () => import('./commands/review.js') },
  { name: 'restructure', summary: 'Propose merges, hub notes and splits; apply one by id (links rewritten, originals to trash)', globals: ['vault', 'json'], load: () => import('./commands/restructure.js') },
  { name: 'maintain', summary: 'Archive notes past forget_after; list stale notes, orphans and possible duplicates', globals: ['vault', 'json'], load: () => import('./commands/maintain.js') },
  { name: 'flagged', summary: 'List notes holding text addressed to an AI (never injected), with what and where', globals: ['vault', 'json'], load: () => import('./commands/flagged.js') },
  { name: 'forget', summary: 'Move a wrong note out of recall into the archive (recoverable, logged)', globals: ['vault', 'json'], load: () => import('./commands/forget.js') },
  { name: 'index', summary: 'Build or update the vault\'s search index (progress bar; --rebuild to start over)', globals: ['vault', 'json'], load: () => import('./commands/index.js') },
  { name: 'search', summary: 'Search the vault\'s memory: ranked notes with scores, snippets and why they matched', globals: ['vault', 'json'], load: () => import('./commands/search.js') },
  { name: 'team', summary: 'Share durable notes with a team through PostgreSQL: connect, promote, approve what agents propose, search, copy, retract', globals: ['vault', 'json'], load: () => import('./commands/team.js') },
  { name: 'model', summary: 'Embedding model: pull (download, the only network use) or status, with the languages it serves', globals: ['json'], load: () => import('./commands/model.js') },
  { name: 'eval', summary: 'Evaluate retrieval (Recall@k, nDCG@10) or extraction (precision, recall per type) on an annotated set', globals: ['json'], load: () => import('./commands/eval.js') },
];
