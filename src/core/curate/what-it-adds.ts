// What a merged note adds to the kept note: the sentences, list items, table rows and code blocks it has that the kept
// note does not (curation's merge and the restructure drafts).
import { closes, FENCE, LINKING, normaliseUnit } from './note-units';

/** Runs of three words: how a passage said again with a comma or a linking word changed is found. */
function grams(u: string): string[] {
  const w = u.split(' ');
  const g: string[] = [];
  for (let i = 0; i + 3 <= w.length; i++) g.push(w.slice(i, i + 3).join(' '));
  return g;
}

/** The passages already there (normalised units), indexed by their runs of three words; it grows with what is added. */
class KnownPassages {
  private readonly byGram = new Map<string, Set<string>>();

  constructor(private readonly known: Set<string>) {
    for (const k of known) this.index(k);
  }

  private index(u: string): void {
    for (const g of grams(u)) {
      const s = this.byGram.get(g);
      if (s) s.add(u);
      else this.byGram.set(g, new Set([u]));
    }
  }

  learn(u: string): void {
    this.known.add(u);
    this.index(u);
  }

  /** The same passage, word for word. */
  exact(u: string): boolean {
    return this.known.has(u);
  }

  /**
   * Passages said again with a comma or a linking word changed ("locking, applied to" / "locking is applied to"):
   * eight words or more, and a known passage that has every word of it but linking words ("Moore" for "Mealy", or
   * "3" for "5", is another statement, not the same one said again).
   */
  near(u: string): boolean {
    const g = grams(u);
    if (g.length < 6) return false;
    const words = u.split(' ');
    const seen = new Set<string>();
    for (const x of g) {
      for (const k of this.byGram.get(x) ?? []) {
        if (seen.has(k)) continue;
        seen.add(k);
        const kw = new Set(k.split(' '));
        if (words.every((w) => kw.has(w) || LINKING.has(w))) return true;
      }
    }
    return false;
  }

  /** Known, said nearly so, or (five words or more) said inside a longer passage (a list item with a bold lead). */
  has(u: string): boolean {
    return this.known.has(u) || (u.split(' ').length >= 5 && [...this.known].some((k) => k.length > u.length && ` ${k} `.includes(` ${u} `))) || this.near(u);
  }
}

/**
 * What a merged note adds to the kept note: its sentences, list items, table rows and code blocks that the kept
 * note (or an earlier part of the merge) does not already have, after normalisation. A heading stays only when its
 * section still has content. `known` grows with what is added.
 */
export function whatItAdds(body: string, known: Set<string>, keepHeading: (text: string) => boolean = () => false): string {
  const fresh = newLines(body.split(/\r?\n/), new KnownPassages(known));
  const rows = dropEmptySections(dropOrphanIntros(dropEmptyTables(fresh)), keepHeading);
  // The note's own line breaks (CRLF stays CRLF).
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  return rows.join(eol).replace(/(\r?\n){3,}/g, `${eol}${eol}`).trim();
}

/** The lines that say something new, each unit learned as it passes; headings and blank lines all stay. */
function newLines(lines: string[], passages: KnownPassages): string[] {
  const out: string[] = [];
  let code: string[] | null = null;
  for (const line of lines) {
    if (code) {
      code.push(line);
      if (closes(code[0], line)) {
        const u = normaliseUnit(code.slice(1, -1).join(' '));
        if (!u || !passages.exact(u)) out.push(...code);
        if (u) passages.learn(u);
        code = null;
      }
      continue;
    }
    if (FENCE.test(line)) {
      code = [line];
      continue;
    }
    const t = line.trim();
    if (!t || /^#{1,6}\s/.test(t)) {
      out.push(line);
      continue;
    }
    if (t.startsWith('|')) {
      const u = normaliseUnit(t);
      if (u && (passages.exact(u) || passages.near(u))) continue;
      if (u) passages.learn(u);
      out.push(line);
      continue;
    }
    const marker = /^([-*+]|\d+[.)]|>)\s+/.exec(t);
    if (marker) {
      const item = newInItem(line, t, marker[0], passages);
      if (item !== undefined) out.push(item);
      continue;
    }
    const kept = t.split(/(?<=[.!?])\s+/).filter((sentence) => {
      const u = normaliseUnit(sentence);
      if (!u) return true;
      if (passages.has(u)) return false;
      passages.learn(u);
      return true;
    });
    if (kept.length) out.push(kept.join(' '));
  }
  if (code) out.push(...code);
  return out;
}

/** A list item with only its new sentences (undefined when everything it says is already there). */
function newInItem(line: string, t: string, marker: string, passages: KnownPassages): string | undefined {
  const parts = t.slice(marker.length).split(/(?<=[.!?])\s+/);
  const us = parts.map(normaliseUnit);
  if (us.some(Boolean) && us.every((u) => !u || passages.has(u))) return undefined;
  // An item that repeats some of its sentences keeps only the new ones.
  const fresh = parts.filter((_, i) => !us[i] || !passages.has(us[i]));
  for (const u of us) if (u) passages.learn(u);
  return fresh.length === parts.length ? line : `${line.slice(0, line.indexOf(t))}${marker}${fresh.join(' ')}`;
}

/** A table whose rows were all there already leaves only its separator lines: they go too. */
function dropEmptyTables(out: string[]): string[] {
  const isRow = (l: string): boolean => l.trim().startsWith('|');
  const left: string[] = [];
  for (let i = 0; i < out.length; ) {
    if (!isRow(out[i])) {
      left.push(out[i++]);
      continue;
    }
    let j = i;
    while (j < out.length && isRow(out[j])) j++;
    const table = out.slice(i, j);
    if (table.some((l) => normaliseUnit(l))) left.push(...table);
    i = j;
  }
  return left;
}

/** The level of a heading line (0: not a heading). */
function headingLevel(l: string): number {
  return /^(#{1,6})\s/.exec(l.trim())?.[1].length ?? 0;
}

/** A line that introduces what follows ("The following table describes these modes:") goes when what followed went. */
function dropOrphanIntros(lines: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t.endsWith(':') && !/^([-*+]|\d+[.)]|>|\|)/.test(t) && !FENCE.test(t)) {
      let j = i + 1;
      while (j < lines.length && lines[j].trim() === '') j++;
      const next = lines[j]?.trim() ?? '';
      if (!next || headingLevel(next) || !/^([-*+]|\d+[.)]|>|\||`{3,}|~{3,}|!\[)/.test(next)) continue;
    }
    kept.push(lines[i]);
  }
  return kept;
}

/** Headings whose section lost all its text go too (deepest first, so an emptied parent follows its children). */
function dropEmptySections(lines: string[], keepHeading: (text: string) => boolean): string[] {
  let changed = true;
  let rows = lines;
  while (changed) {
    changed = false;
    const next: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const level = headingLevel(rows[i]);
      if (level && !keepHeading(rows[i].trim().replace(/^#{1,6}\s+/, '').replace(/[ \t#]+$/, ''))) {
        let j = i + 1;
        while (j < rows.length && rows[j].trim() === '') j++;
        const nextLevel = j < rows.length ? headingLevel(rows[j]) : 0;
        if (j >= rows.length || (nextLevel && nextLevel <= level)) {
          changed = true;
          continue;
        }
      }
      next.push(rows[i]);
    }
    rows = next;
  }
  return rows;
}

/** The normalised units of a text already present (seed for `whatItAdds`). */
export function knownUnits(body: string): Set<string> {
  const known = new Set<string>();
  whatItAdds(body, known);
  return known;
}
