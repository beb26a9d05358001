// Private spans: text a person wraps in `<private>…</private>` in a prompt (or anywhere in a transcript) never leaves
// the transcript reader: it is cut out before redaction, so no LLM request, note, index, injection or activity record
// can hold it. An opening tag with no closing one makes the rest of that text private (the safe side).

const PRIVATE_SPAN = /<private(?:\s[^>]*)?>[\s\S]*?(?:<\/private\s*>|$)/gi;

/** What stands where a private span was, so a reader of the transcript knows something was left out. */
export const PRIVATE_MARK = '[private]';

/** The text with every private span replaced by PRIVATE_MARK, and how many there were. */
export function withoutPrivate(text: string): { text: string; spans: number } {
  if (!/<private/i.test(text)) return { text, spans: 0 };
  let spans = 0;
  const out = text.replace(PRIVATE_SPAN, () => {
    spans++;
    return PRIVATE_MARK;
  });
  return { text: out, spans };
}
