// Engram's provenance footer: the `> [!quote]- Source` callout at the end of an extracted note, quoting the turns
// the note came from. One definition for the writer (extract/note-writer.ts) and its readers (dedup's content key,
// review's promote, which carries the callouts over).

/** The callout's first line, as the writer puts it. */
export const PROVENANCE_CALLOUT = '> [!quote]- Source';

/** The body without its source footer, so that provenance does not make two notes look different. */
export function stripProvenance(body: string): string {
  const at = body.indexOf(`\n${PROVENANCE_CALLOUT}`);
  return at < 0 ? body : body.slice(0, at);
}

/** The source callouts of a note body, each as written (a user may have changed `-` to `+` or the case). */
export function sourceCallouts(body: string): string[] {
  const out: string[] = [];
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (!/^>\s*\[!quote\][-+]?\s+Source\b/i.test(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && lines[j].startsWith('>')) j++;
    out.push(lines.slice(i, j).join('\n'));
    i = j - 1;
  }
  return out;
}
