// Text as a reader sees it, for matching only: what the fence and the secret rules look for must not hide behind
// characters that render as nothing or as a look-alike. Each character is folded on its own (compatibility
// decomposition with the marks dropped, so full-width `＜ｅ` is `<e`; zero-width characters, soft hyphens and
// variation selectors removed; Unicode hyphens, angle brackets and Cyrillic/Greek look-alike letters mapped to their
// ASCII twins), and a map leads every folded position back to the original text, so a match is acted on in the text
// the user wrote, which is never rewritten as a whole.

// Zero-width and invisible format characters, the soft hyphen, the combining grapheme joiner, variation selectors.
const INVISIBLE = new Set<number>([0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x3164, 0xfeff, 0xffa0]);
const INVISIBLE_RANGES: [number, number][] = [[0x180b, 0x180f], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0xfe00, 0xfe0f]];

function invisible(cp: number): boolean {
  return INVISIBLE.has(cp) || INVISIBLE_RANGES.some(([a, b]) => cp >= a && cp <= b);
}

const LOOKALIKE: Record<string, string> = {
  // hyphens and dashes
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2043': '-', '\u2212': '-', '\u02D7': '-', '\u2E3A': '-', '\u2E3B': '-',
  // angle brackets
  '\u2039': '<', '\u203A': '>', '\u2329': '<', '\u232A': '>', '\u27E8': '<', '\u27E9': '>', '\u3008': '<', '\u3009': '>', '\u02C2': '<', '\u02C3': '>', '\u1438': '<', '\u1433': '>', '\u276C': '<', '\u276D': '>', '\u29FC': '<', '\u29FD': '>',
  // slashes
  '\u2215': '/', '\u2044': '/', '\u29F8': '/',
  // Cyrillic letters that look Latin
  'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g', 'ɑ': 'a', 'ո': 'n', 'т': 't', 'м': 'm', 'г': 'r', 'п': 'n',
  'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'У': 'Y', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ԍ': 'G',
  // Greek letters that look Latin
  'ο': 'o', 'α': 'a', 'ε': 'e', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'η': 'n', 'μ': 'm',
  'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Χ': 'X', 'Υ': 'Y', 'Ζ': 'Z',
};

// Characters that fold to themselves (plain ASCII); checked first so ordinary text costs one test per character.
const NEEDS_FOLD_RE = /[^\t\n\r\x20-\x7E]/;

export interface FoldedText {
  /** The folded text. */
  text: string;
  /** For each position of `text`, where the original character it came from starts and ends. */
  from: number[];
  to: number[];
}

/** The folded text and its map back to `text`, or null when folding changes nothing (plain ASCII text). */
export function foldForMatching(text: string): FoldedText | null {
  if (!NEEDS_FOLD_RE.test(text)) return null;
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    const folded = foldChar(ch);
    for (let k = 0; k < folded.length; k++) {
      from.push(i);
      to.push(i + ch.length);
    }
    out += folded;
    i += ch.length;
  }
  return out === text ? null : { text: out, from, to };
}

function foldChar(ch: string): string {
  if (ch.charCodeAt(0) < 0x80) return ch;
  if (invisible(ch.codePointAt(0)!)) return '';
  const direct = LOOKALIKE[ch];
  if (direct) return direct;
  const decomposed = ch.normalize('NFKD').replace(/\p{M}/gu, '');
  let out = '';
  for (const c of decomposed) out += LOOKALIKE[c] ?? c;
  return out;
}

/** The original span of the folded span [start, end) (end > start): whole original characters. */
export function originalSpan(f: FoldedText, start: number, end: number): { start: number; end: number } {
  return { start: f.from[start], end: f.to[end - 1] };
}
