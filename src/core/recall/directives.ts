// Directive-shaped text: words in a note addressed to an AI, or giving it orders (override its instructions, run a
// command, fetch a URL, reveal secrets, a chat-role header, a hidden comment that speaks to a model). A note holding
// such text is never injected by a hook; recall shows it with those paragraphs withheld (issue 32). Matched on the
// folded text (transcript/fold.ts) as well as the text as written, so zero-width characters, soft hyphens and
// look-alike letters do not hide a phrase, and scripts that fold would mangle (Cyrillic) still match as written.
// Cheap: a handful of regular expressions over the note, run when a note is about to be injected or recalled.
import type { Chunk } from '../index/chunk.js';
import { foldForMatching } from '../transcript/fold.js';

export type DirectiveKind = 'override' | 'addressed' | 'role-header' | 'hidden' | 'exfiltration' | 'orders';

/** Each kind in words, for people (the review pane, `engram flagged`). */
export const DIRECTIVE_KINDS: Record<DirectiveKind, string> = {
  override: 'tells an AI to drop its instructions',
  addressed: 'addressed to an AI',
  'role-header': 'a chat-role header',
  hidden: 'hidden orders',
  exfiltration: 'asks for secrets or private data',
  orders: 'orders kept from the user',
};

export interface Directive {
  kind: DirectiveKind;
  /** Where the flagged text starts and ends in the text as written. */
  start: number;
  end: number;
  /** The flagged words, shortened, for the activity record and the review. */
  excerpt: string;
}

const AI = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|ai (?:assistants?|agents?|models?|systems?)|assistants?|chat ?bots?|coding (?:assistants?|agents?)|agents?|claude|chatgpt|gpt(?:-?\d\w*)?|copilot|codex|gemini|bard)`;

// Strong signals: each alone flags the text.
const STRONG: { kind: DirectiveKind; re: RegExp }[] = [
  // "ignore all previous instructions", "disregard any prior rules", "forget everything above", "override your system prompt"
  { kind: 'override', re: /\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,30}?\b(?:previous|prior|above|earlier|preceding|original|system|existing|everything above)\b[^.\n]{0,20}?\b(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|above)\b/i },
  { kind: 'override', re: /\bforget everything (?:above|before|you were told)\b/i },
  { kind: 'override', re: /\b(?:your|the) (?:previous|prior|original) (?:rules|instructions) (?:are|have been) (?:suspended|revoked|void|cancelled|replaced)\b/i },
  { kind: 'override', re: /\b(?:enable|enter|activate|switch to|now in|are in) (?:god|jailbreak|dan|unrestricted) mode\b|\byou are (?:now )?(?:dan|an? (?:unrestricted|unfiltered|jailbroken))\b|\bno (?:longer|more) (?:bound by|restricted by)|\bsafety (?:guidelines|rules|filters) (?:no longer|do not) apply\b/i },
  // Multilingual overrides (matched on the text as written, lower-cased).
  { kind: 'override', re: /\bignora(?:r)? (?:todas )?las instrucciones (?:anteriores|previas)|\bignorez (?:toutes )?les instructions (?:précédentes|antérieures)|\bignoriere (?:alle )?(?:vorherigen|bisherigen|obigen) anweisungen|\bignore todas as instruções anteriores|\bignora (?:tutte )?le istruzioni precedenti|игнорируй(?:те)? (?:все )?(?:предыдущие|прошлые) (?:инструкции|указания)|忽略(?:之前|以上|上面|先前)的?(?:所有)?(?:指令|指示|说明)|(?:以前|前|上記)の指示を(?:すべて)?無視/iu },
  // Text addressed to a model: "note to AI assistants", "if you are an LLM", "AI agents reading this", "Dear ChatGPT", "Hi Claude!"
  { kind: 'addressed', re: new RegExp(String.raw`\b(?:note|message|notice|instructions?|attention|warning|request|reminder)s?\b[^.\n]{0,12}?\b(?:to|for)\b (?:(?:all|any|the|other|every) )*(?:other )?${AI}\b`, 'i') },
  { kind: 'addressed', re: new RegExp(String.raw`\bif you(?:'re| are) an? (?:${AI})\b|\b(?:${AI}) (?:reading|processing|parsing|summari[sz]ing|seeing) (?:this|these)\b|\b(?:${AI})\b[^.\n]{0,3}\bif you(?:'re| are) reading this\b`, 'i') },
  { kind: 'addressed', re: new RegExp(String.raw`(?:^|[^\w'])(?:dear|attention|attn)\s*,? (?:${AI})\b[^\n]{0,40}?[,:!]`, 'i') },
  { kind: 'addressed', re: new RegExp(String.raw`(?:^|[\n>(\[])\s*(?:for (?:all |any )?)?(?:${AI})\s*[,:]\s*(?:you (?:must|should|will|are)|please|before|do not|don't|never|always|silently|immediately|execute|run|fetch|download|visit|open|read|remember|ignore|reveal|print|send|click|tell|the)\b`, 'i') },
  { kind: 'addressed', re: /\b(?:the user|user) has (?:already )?(?:authori[sz]ed|approved|allowed|permitted) you\b|\byou have been (?:authori[sz]ed|approved|permitted|allowed) by the user\b/i },
  // Chat-template and role markers that only a model's input carries.
  { kind: 'role-header', re: /<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id)\|?>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system-prompt|system_prompt)>|^\s*#{1,4}\s*(?:system|assistant)\s*:\s*$|\bBEGIN (?:SYSTEM|NEW) (?:PROMPT|INSTRUCTIONS)\b|\bnew system prompt\b|<\/engram-memory>/im },
  { kind: 'role-header', re: /^\s*SYSTEM\s*:\s+\S/m },
  // "do not tell the user", "without asking the user": secrecy from the user is what a note never asks of its reader.
  { kind: 'orders', re: /\b(?:do not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?(?: this)?(?: to)?|alert(?:ing)?|notify(?:ing)?|ask(?:ing)?|show(?:ing)?|let(?:ting)?)\s+(?:this\s+)?(?:to\s+)?the (?:user|human|operator)\b/i },
  // Secrets to reveal or send: the system prompt, keys, credentials.
  { kind: 'exfiltration', re: /\b(?:print|reveal|output|show|repeat|leak|disclose|send|post|upload|exfiltrate|email)\b[^.\n]{0,25}?\b(?:your|the) (?:system prompt|initial (?:prompt|instructions)|hidden instructions)\b/i },
  { kind: 'exfiltration', re: /\b(?:send|upload|exfiltrate|email|forward|transmit|leak)\b[^\n]{0,40}?(?:\.env\b|~\/\.ssh|id_(?:rsa|ed25519)|\.aws\/credentials|\.netrc|api[ -_]?keys?|secrets?|credentials|passwords?|tokens?)\b[^\n]{0,40}?(?:https?:\/\/|\S+@\S+\.\w+|\bto (?:the )?(?:mirror|remote|server|endpoint))/i },
  { kind: 'exfiltration', re: /\b(?:reveal|output|print|dump|list)\b (?:every|all|the)? ?(?:secrets?|api keys?|tokens?|passwords?|credentials)\b[^.\n]{0,30}?\b(?:you (?:have|can|saw|have seen)|in (?:this|the) conversation)/i },
  { kind: 'exfiltration', re: /\b(?:store|save|include|record|remember|log|write)\b[^.\n]{0,25}?\bthe user's (?:password|passwords|token|tokens|api keys?|credentials|secrets?|private key)\b/i },
  // A Markdown image whose address carries a placeholder to fill: the classic exfiltration by rendering.
  { kind: 'exfiltration', re: /!\[[^\]\n]*\]\(\s*https?:\/\/[^)\s]*[?&][^)\s=]*=\s*(?:\{[^}]*\}|\$[A-Z_{]|<[^>]*>|\[[A-Z_ ]+\])/ },
];

// Orders a model could act on; addressed to nobody in particular they are an ordinary how-to ("run `make deploy`"), so
// they flag only where nobody reads them (an HTML or Obsidian comment, a hidden element).
const WEAK: RegExp[] = [
  /\b(?:run|execute|exec)\b/i,
  /\b(?:fetch|download|visit|open|browse to|go to)\b[^\n]{0,40}https?:\/\//i,
  /\b(?:before (?:answering|responding|replying|you (?:answer|respond|reply))|silently|immediately|from now on)\b/i,
  /\b(?:follow|obey)\b[^.\n]{0,30}\b(?:instructions|what it says|them)\b/i,
  /\byou (?:must|are required to|need to|have to|will now)\b/i,
  /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sh|bash|zsh|python3?)\b/i,
];

// Orders that flag in hidden text: not "immediately" ("these scripts don't render anything immediately").
const HIDDEN_ORDERS = WEAK.filter((_, i) => i !== 2);

// Hidden places a reader of the rendered note never sees.
const HIDDEN_RE = /<!--([\s\S]*?)-->|%%([\s\S]*?)%%|<(?:div|span|p)\b[^>]*\b(?:display\s*:\s*none|visibility\s*:\s*hidden|hidden)\b[^>]*>([\s\S]*?)<\/(?:div|span|p)>/gi;

// Unicode tag characters (U+E0000–U+E007F) render as nothing and spell ASCII to a model: "ASCII smuggling".
const TAG_CHARS_RE = /[\u{E0000}-\u{E007F}]+/gu;

function excerpt(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

/** The words a reader needs to recognise the span `start`–`end`: its line, cut around it when long. */
function around(text: string, start: number, end: number): string {
  const from = Math.max(text.lastIndexOf('\n', start - 1) + 1, start - 20);
  const nl = text.indexOf('\n', end);
  const to = Math.min(nl < 0 ? text.length : nl, Math.max(end, from + 100));
  return text.slice(from, to);
}

function strongIn(text: string, offset: number, map: ((i: number) => number) | null, original: string, out: Directive[]): void {
  for (const { kind, re } of STRONG) {
    const m = re.exec(text);
    if (!m) continue;
    const start = map ? map(m.index) : m.index + offset;
    const end = map ? map(m.index + m[0].length - 1) + 1 : m.index + m[0].length + offset;
    out.push({ kind, start, end, excerpt: excerpt(around(original, start, end)) });
  }
}

/** Every directive-shaped span of `text` (a note body or a passage), at most one per rule; none for ordinary notes. */
export function findDirectives(text: string): Directive[] {
  const out: Directive[] = [];
  strongIn(text, 0, null, text, out);
  const folded = foldForMatching(text);
  if (folded && !out.length) strongIn(folded.text, 0, (i) => folded.from[Math.min(i, folded.from.length - 1)], text, out);
  for (const m of text.matchAll(TAG_CHARS_RE)) {
    const spelled = [...m[0]].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join('');
    out.push({ kind: 'hidden', start: m.index, end: m.index + m[0].length, excerpt: excerpt(`invisible tag characters: ${spelled}`) });
  }
  // Hidden text that gives orders: weak signals count there.
  const plain = folded ? folded.text : text;
  for (const m of plain.matchAll(HIDDEN_RE)) {
    const inner = m[1] ?? m[2] ?? m[3] ?? '';
    // A long block is data (an Excalidraw drawing's JSON), `<!--#` a server-side include: neither speaks to a reader.
    if (inner.length > 1000 || inner.startsWith('#')) continue;
    if (HIDDEN_ORDERS.some((re) => re.test(inner)) || STRONG.some(({ re }) => re.test(inner))) {
      const start = folded ? folded.from[m.index] : m.index;
      const last = m.index + m[0].length - 1;
      const end = folded ? folded.to[last] : last + 1;
      out.push({ kind: 'hidden', start, end, excerpt: excerpt(text.slice(start, end)) });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The spans of `text`'s paragraphs (separated by blank lines), never empty ones. */
function paragraphs(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let from = 0;
  for (const m of text.matchAll(/\n\s*\n/g)) {
    if (m.index > from) out.push({ start: from, end: m.index });
    from = m.index + m[0].length;
  }
  if (text.length > from) out.push({ start: from, end: text.length });
  return out;
}

/**
 * `text` with each paragraph that holds directive-shaped words replaced by one line saying so, for recall answers: the
 * agent learns the note holds such text and where, never the words themselves.
 */
export function withholdDirectives(text: string, where: string, found = findDirectives(text)): string {
  if (!found.length) return text;
  // findDirectives reports one span a rule: a paragraph is read on its own too, so a second one of the same kind goes.
  const marker = `[text addressed to AI assistants withheld: ${where}]`;
  const paras = paragraphs(text);
  const out: string[] = [];
  let last = false;
  for (const p of paras) {
    const hit = found.some((d) => d.start < p.end && d.end > p.start) || findDirectives(text.slice(p.start, p.end)).length > 0;
    if (hit) {
      if (!last) out.push(marker);
      last = true;
    } else {
      out.push(text.slice(p.start, p.end));
      last = false;
    }
  }
  return out.join('\n\n');
}

/** Which passages of a note hold directive-shaped text: what a hook may still quote of it (issue 32). */
export interface PassageFlags {
  /** Nothing of the note goes out: such text lies outside every passage (`loose`), or the note is one passage. */
  whole: boolean;
  /** Spans in no flagged passage: in the frontmatter a summary comes from, or across two passages. */
  loose: Directive[];
  /** The flagged passages, each with its heading path ('' for the text before the first heading, or a note kept whole). */
  passages: { heading: string; directives: Directive[] }[];
}

/**
 * Reads each passage of a note (`chunks`, cut as the index cuts them: index/chunk.ts) on its own, so a long note with one
 * poisoned section keeps its clean sections recallable. `found` are the spans of the whole file `text`: one that lies in
 * no flagged passage (frontmatter, a comment across a heading) flags the whole note.
 */
export function flagPassages(text: string, chunks: Chunk[], found = findDirectives(text)): PassageFlags {
  const passages: PassageFlags['passages'] = [];
  const flaggedText: string[] = [];
  for (const c of chunks) {
    const directives = findDirectives(c.text);
    if (!directives.length) continue;
    passages.push({ heading: c.heading ?? '', directives });
    flaggedText.push(c.text);
  }
  const loose = found.filter((d) => {
    const raw = text.slice(d.start, d.end);
    return !flaggedText.some((t) => t.includes(raw));
  });
  return { whole: loose.length > 0 || chunks.length <= 1, loose, passages };
}
