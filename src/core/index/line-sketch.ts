// Boilerplate lines (a template's button, a footer, a repeated notice): a count-min sketch of how many notes hold each
// line, so excerpts can leave out what many notes say and show what the note itself says.
/**
 * A line found in at least this many notes, and in at least BOILERPLATE_SHARE of them, is boilerplate (a template's
 * button, a footer, a repeated notice): left out of excerpts, which then show what the note itself says.
 */
export const BOILERPLATE_MIN_NOTES = 5;
export const BOILERPLATE_SHARE = 0.005;
/** Lines shorter than this ("---", "Notes:") are never counted: too short to be a template's sentence. */
const BOILERPLATE_MIN_CHARS = 8;
/** Buckets per row of the count-min sketch of line document frequencies (two rows of 16-bit counts: 4 MB). */
const SKETCH_BITS = 20;

const MASK = (1 << SKETCH_BITS) - 1;

/**
 * The lines of a passage worth counting for boilerplate, each as two hashes of its normalised text (spaces collapsed,
 * ASCII lower case) and where it sits: not in or opening a code block (repeated code such as `} else {` is the code),
 * not headings (the heading path shows those). One pass over the characters a hash, no string made per line.
 * `keep`, when given, is asked about a line's first hash before the second is made (an excerpt skips the second hash
 * of a line no row counts often enough: most lines).
 */
export function countedLines(text: string, each: (a: number, b: number, start: number, end: number) => void, keep?: (a: number) => boolean): void {
  let fence = 0; // the fence's character code while inside a code block
  const n = text.length;
  for (let s = 0; s < n; ) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = n;
    let i = s;
    while (i < e && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    const c0 = text.charCodeAt(i);
    if (i - s <= 3 && (c0 === 96 || c0 === 126) && text.charCodeAt(i + 1) === c0 && text.charCodeAt(i + 2) === c0) {
      fence = fence === 0 ? c0 : fence === c0 ? 0 : fence;
    } else if (fence === 0 && !(i === s && c0 === 35 && isHeading(text, s, e))) {
      let end = e;
      while (end > i && text.charCodeAt(end - 1) <= 32) end--;
      const h1 = lineHash(text, i, end, 0x811c9dc5, 0x01000193);
      if (hashedChars >= BOILERPLATE_MIN_CHARS) {
        const a = mix(h1) & MASK;
        if (!keep || keep(a)) each(a, mix(lineHash(text, i, end, 0x2f6b1d3, 0x5bd1e995)) & MASK, s, e);
      }
    }
    s = e + 1;
  }
}

/** How many characters the last `lineHash` hashed (its runs of spaces as one). */
let hashedChars = 0;

/** A multiplicative hash of text[i, end) with runs of spaces, tabs and CRs as one space and ASCII in lower case. */
function lineHash(text: string, i: number, end: number, h: number, prime: number): number {
  let len = 0;
  let space = false;
  for (let k = i; k < end; k++) {
    let c = text.charCodeAt(k);
    if (c === 32 || c === 9 || c === 13) {
      space = true;
      continue;
    }
    if (space) {
      h = Math.imul(h ^ 32, prime);
      len++;
      space = false;
    }
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, prime);
    len++;
  }
  hashedChars = len;
  return h;
}

export function isHeading(text: string, s: number, e: number): boolean {
  let k = s;
  while (k < e && text.charCodeAt(k) === 35) k++;
  const c = text.charCodeAt(k);
  return k - s <= 6 && k < e && (c === 32 || c === 9);
}

export function mix(h: number): number {
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * How many notes hold each line, estimated in fixed memory (a count-min sketch: two hashed rows, the smaller count
 * read; a line's count is never under its true number of notes and rarely over it). Updated with each note added or
 * removed, so an edit never needs the vault read again.
 */
export class LineSketch {
  readonly a = new Uint16Array(1 << SKETCH_BITS);
  readonly b = new Uint16Array(1 << SKETCH_BITS);
  private readonly seen = new Set<number>();

  /**
   * The sketch as the snapshot keeps it: each row's counted buckets as pairs of varints (the gap from the bucket before,
   * the count). About 70,000 buckets a row for 13,415 notes: some 280 KB, where the rows themselves are 4 MB.
   */
  encode(): Uint8Array {
    const out: number[] = [];
    // A gap is at most 2^SKETCH_BITS, a count at most 0xffff: three bytes each at most.
    const varint = (n: number): void => {
      for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
      out.push(n);
    };
    for (const row of [this.a, this.b]) {
      let prev = -1;
      for (let i = 0; i < row.length; i++) {
        if (row[i] === 0) continue;
        varint(i - prev);
        varint(row[i]);
        prev = i;
      }
      varint(0);
    }
    return Uint8Array.from(out);
  }

  /**
   * A sketch from `encode`'s bytes, in steps of a few thousand buckets (a load runs this code once, unoptimised); null
   * when they do not read as one (the snapshot is then damaged).
   */
  static *decode(bytes: Uint8Array): Generator<void, LineSketch | null> {
    const s = new LineSketch();
    let at = 0;
    // Varints of up to three bytes: a bucket number is under 2^SKETCH_BITS, a count under 2^16.
    const next = (): number => {
      let n = 0;
      for (let shift = 0; shift <= 14 && at < bytes.length; shift += 7) {
        const b = bytes[at++];
        n |= (b & 0x7f) << shift;
        if (b < 0x80) return n;
      }
      return -1;
    };
    let read = 0;
    for (const row of [s.a, s.b]) {
      for (let i = -1; ; ) {
        const gap = next();
        if (gap === 0) break;
        const count = next();
        i += gap;
        if (gap < 0 || i >= row.length || count < 1 || count > 0xffff) return null;
        row[i] = count;
        if (++read % 8192 === 0) yield;
      }
    }
    return at === bytes.length ? s : null;
  }

  /** Counts (or with -1 uncounts) one note's distinct lines. */
  note(chunks: Iterable<string>, sign: 1 | -1): void {
    // A line a note repeats (a checklist's "- [ ] call") counts once for it.
    const seen = this.seen;
    seen.clear();
    for (const text of chunks) {
      countedLines(text, (a, b) => {
        const key = ((a << 10) ^ b) & 0x3fffffff;
        if (seen.has(key)) return;
        seen.add(key);
        this.a[a] = Math.max(0, Math.min(0xffff, this.a[a] + sign));
        this.b[b] = Math.max(0, Math.min(0xffff, this.b[b] + sign));
      });
    }
  }
}
