// What extraction must not see in a turn's text: system reminders, Claude Code's slash-command and
// local-command wrappers, interruption markers, and Engram's own fenced context (docs/ARCHITECTURE.md invariant 7).
import { stripEngramFences } from './fence.js';

export interface CleanResult {
  text: string;
  systemReminders: number;
  engramFences: number;
}

// Tags whose whole content is machine output or harness chatter.
const DROP_BLOCK_RE =
  /<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|bash-stdout|bash-stderr|command-name|command-message|task-notification|agent-notification|ide_opened_file|ide_selection|ide_diagnostics)>[\s\S]*?(?:<\/\1>|$)/g;
// Tags whose content the user typed (slash-command arguments, `!` shell input): keep the content.
const UNWRAP_RE = /<\/?(command-args|bash-input)>/g;
const INTERRUPT_RE = /\[Request interrupted by user(?: for tool use)?\]/g;

export function cleanText(raw: string): CleanResult {
  let text = raw;
  let systemReminders = 0;
  let engramFences = 0;
  if (text.includes('<engram-memory')) {
    const f = stripEngramFences(text);
    text = f.text;
    engramFences = f.removed;
  }
  if (text.includes('<')) {
    text = text.replace(DROP_BLOCK_RE, (_m, tag: string) => {
      if (tag === 'system-reminder') systemReminders++;
      return '';
    });
    text = text.replace(UNWRAP_RE, '');
  }
  if (text.includes('[Request interrupted')) text = text.replace(INTERRUPT_RE, '');
  text = text.replace(/\n{3,}/g, '\n\n').trim();
  return { text, systemReminders, engramFences };
}

/** First line of a tool error, shortened: what the signal finder and the LLM need, not the whole dump. */
export function errorSummary(raw: string, max = 300): string {
  const t = raw.replace(/<\/?tool_use_error>/g, '').trim();
  const firstLines = t.split('\n').filter((l) => l.trim()).slice(0, 3).join(' | ');
  return firstLines.length > max ? `${firstLines.slice(0, max - 1)}…` : firstLines;
}
