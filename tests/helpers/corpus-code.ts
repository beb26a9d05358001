// What the corpus transcripts hold as code (files written, edited and read): the lines redaction must
// leave alone. Shared by the false-positive test and `npm run bench -- redact`.
import fs from 'node:fs';
import path from 'node:path';

export function walk(dir: string, ext: RegExp, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p, ext, out);
    } else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

/** Code carried by one JSONL record: Write/Edit inputs, Read results (Claude Code), apply_patch (Codex). */
export function codeIn(raw: string): string[] {
  let r: unknown;
  try {
    r = JSON.parse(raw);
  } catch {
    return [];
  }
  const out: string[] = [];
  const rec = r as { message?: { content?: unknown }; payload?: { type?: string; input?: unknown; name?: string }; toolUseResult?: { file?: { content?: unknown } } };
  const content = rec.message?.content;
  if (Array.isArray(content)) {
    for (const b of content as { type?: string; name?: string; input?: Record<string, unknown> }[]) {
      if (b?.type === 'tool_use' && b.input) {
        for (const k of ['content', 'new_string', 'old_string']) if (typeof b.input[k] === 'string') out.push(b.input[k]);
        if (Array.isArray(b.input.edits)) for (const e of b.input.edits as Record<string, unknown>[]) if (typeof e?.new_string === 'string') out.push(e.new_string);
      }
    }
  }
  const read = rec.toolUseResult?.file?.content;
  if (typeof read === 'string') out.push(read);
  if (rec.payload?.type === 'custom_tool_call' && typeof rec.payload.input === 'string') out.push(rec.payload.input);
  return out;
}
