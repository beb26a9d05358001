// Markers Engram puts around everything it injects into an agent session, so that the transcript
// reader can remove it again: memory must never be extracted back out of memory (DESIGN invariant 7).
// The hook engineer wraps injected context with fenceMemory(); extraction prompts start with
// ENGRAM_PROMPT_MARKER so a transcript of Engram's own LLM call is recognised and never queued.

/** Opening line of an injected context block. Attributes may follow the name: `<engram-memory reason="recall">`. */
export const ENGRAM_FENCE_OPEN = '<engram-memory>';
export const ENGRAM_FENCE_CLOSE = '</engram-memory>';
/** The first line of every extraction prompt Engram sends to an LLM. */
export const ENGRAM_PROMPT_MARKER = '<!-- engram:extraction-prompt -->';

// An opening tag with optional attributes, up to the closing tag; an unclosed block (Claude Code cuts
// long hook output into a preview) is removed to the end of the text, failing closed.
const FENCE_RE = /<engram-memory(?:\s[^>\n]*)?>[\s\S]*?(?:<\/engram-memory>|$)/g;

/** Wraps injected context in Engram's fence. `attrs` become `key="value"` pairs on the opening tag. */
export function fenceMemory(body: string, attrs: Record<string, string> = {}): string {
  const attrText = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${v.replace(/["<>\n]/g, ' ')}"`)
    .join('');
  // A closing tag inside the body would end the fence early; break it up.
  const safe = body.split(ENGRAM_FENCE_CLOSE).join('</engram-memory\u200b>');
  return `${ENGRAM_FENCE_OPEN.slice(0, -1)}${attrText}>\n${safe}\n${ENGRAM_FENCE_CLOSE}`;
}

/** Removes every Engram fence from text; returns the text and how many blocks were removed. */
export function stripEngramFences(text: string): { text: string; removed: number } {
  if (!text.includes('<engram-memory')) return { text, removed: 0 };
  let removed = 0;
  const out = text.replace(FENCE_RE, () => {
    removed++;
    return '';
  });
  return { text: out, removed };
}

/** True when a prompt (or a transcript's first user turn) is one of Engram's own extraction prompts. */
export function startsWithPromptMarker(text: string): boolean {
  return text.trimStart().startsWith(ENGRAM_PROMPT_MARKER);
}
