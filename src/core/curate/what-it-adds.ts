// What a merged note adds to the kept note: the sentences, list items, table rows and code blocks it has that the kept
// note does not (curation's merge and the restructure drafts).
import { closes, FENCE, LINKING, normaliseUnit } from './evidence';

/**
 * What a merged note adds to the kept note: its sentences, list items, table rows and code blocks that the kept
 * note (or an earlier part of the merge) does not already have, after normalisation. A heading stays only when its
 * section still has content. `known` grows with what is added.
 */
export function whatItAdds(body: string, known: Set<string>, keepHeading: (text: string) => boolean = () => false): string {
  const lines = body.split(/\r?\n/);
  // Passages said again with a comma or a linking word changed ("locking, applied to" / "locking is applied to"):
  // found through their runs of three words, then compared word by word.
  const grams = (u: string): string[] => {
    const w = u.split(' ');
    const g: string[] = [];
    for (let i = 0; i + 3 <= w.length; i++) g.push(w.slice(i, i + 3).join(' '));
    return g;
  };
  const byGram = new Map<string, Set<string>>();
  const index = (u: string): void => {
    for (const g of grams(u)) {
      const s = byGram.get(g);
      if (s) s.add(u);
      else byGram.set(g, new Set([u]));
    }
  };
  const learn = (u: string): void => {
    known.add(u);
    index(u);
  };
  for (const k of known) index(k);
  // Eight words or more, and a known passage that has every word of it but linking words ("Moore" for "Mealy", or
  // "3" for "5", is another statement, not the same one said again).
  const near = (u: string): boolean => {
    const g = grams(u);
    if (g.length < 6) return false;
    const words = u.split(' ');
    const seen = new Set<string>();
    for (const x of g) {
      for (const k of byGram.get(x) ?? []) {
        if (seen.has(k)) continue;
        seen.add(k);
        const kw = new Set(k.split(' '));
        if (words.every((w) => kw.has(w) || LINKING.has(w))) return true;
      }
    }
    return false;
  };
  // A sentence of five words or more already said inside a longer passage (a list item with a bold lead) is known too.
  const has = (u: string): boolean => known.has(u) || (u.split(' ').length >= 5 && [...known].some((k) => k.length > u.length && ` ${k} `.includes(` ${u} `))) || near(u);
  const out: string[] = [];
  let code: string[] | null = null;
  for (const line of lines) {
    if (code) {
      code.push(line);
      if (closes(code[0], line)) {
        const u = normaliseUnit(code.slice(1, -1).join(' '));
        if (!u || !known.has(u)) out.push(...code);
        if (u) learn(u);
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
      if (u && (known.has(u) || near(u))) continue;
      if (u) learn(u);
      out.push(line);
      continue;
    }
    const marker = /^([-*+]|\d+[.)]|>)\s+/.exec(t);
    if (marker) {
      // A list item goes when everything it says is already there.
      const parts = t.slice(marker[0].length).split(/(?<=[.!?])\s+/);
      const us = parts.map(normaliseUnit);
      if (us.some(Boolean) && us.every((u) => !u || has(u))) continue;
      // An item that repeats some of its sentences keeps only the new ones.
      const fresh = parts.filter((_, i) => !us[i] || !has(us[i]));
      for (const u of us) if (u) learn(u);
      out.push(fresh.length === parts.length ? line : `${line.slice(0, line.indexOf(t))}${marker[0]}${fresh.join(' ')}`);
      continue;
    }
    const kept = t.split(/(?<=[.!?])\s+/).filter((sentence) => {
      const u = normaliseUnit(sentence);
      if (!u) return true;
      if (has(u)) return false;
      learn(u);
      return true;
    });
    if (kept.length) out.push(kept.join(' '));
  }
  if (code) out.push(...code);
  // A table whose rows were all there already leaves only its separator lines: they go too.
  const isRow = (l: string): boolean => l.trim().startsWith('|');
  const tablesLeft: string[] = [];
  for (let i = 0; i < out.length; ) {
    if (!isRow(out[i])) {
      tablesLeft.push(out[i++]);
      continue;
    }
    let j = i;
    while (j < out.length && isRow(out[j])) j++;
    const table = out.slice(i, j);
    if (table.some((l) => normaliseUnit(l))) tablesLeft.push(...table);
    i = j;
  }
  // A line that introduces what follows ("The following table describes these modes:") goes when what followed went.
  const isHeading = (l: string): number => /^(#{1,6})\s/.exec(l.trim())?.[1].length ?? 0;
  const intro: string[] = [];
  for (let i = 0; i < tablesLeft.length; i++) {
    const t = tablesLeft[i].trim();
    if (t.endsWith(':') && !/^([-*+]|\d+[.)]|>|\|)/.test(t) && !FENCE.test(t)) {
      let j = i + 1;
      while (j < tablesLeft.length && tablesLeft[j].trim() === '') j++;
      const next = tablesLeft[j]?.trim() ?? '';
      if (!next || isHeading(next) || !/^([-*+]|\d+[.)]|>|\||`{3,}|~{3,}|!\[)/.test(next)) continue;
    }
    intro.push(tablesLeft[i]);
  }
  // Headings whose section lost all its text go too (deepest first, so an emptied parent follows its children).
  let changed = true;
  let rows = intro;
  while (changed) {
    changed = false;
    const next: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const level = isHeading(rows[i]);
      if (level && !keepHeading(rows[i].trim().replace(/^#{1,6}\s+/, '').replace(/[ \t#]+$/, ''))) {
        let j = i + 1;
        while (j < rows.length && rows[j].trim() === '') j++;
        const nextLevel = j < rows.length ? isHeading(rows[j]) : 0;
        if (j >= rows.length || (nextLevel && nextLevel <= level)) {
          changed = true;
          continue;
        }
      }
      next.push(rows[i]);
    }
    rows = next;
  }
  // The note's own line breaks (CRLF stays CRLF).
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  return rows.join(eol).replace(/(\r?\n){3,}/g, `${eol}${eol}`).trim();
}

/** The normalised units of a text already present (seed for `whatItAdds`). */
export function knownUnits(body: string): Set<string> {
  const known = new Set<string>();
  whatItAdds(body, known);
  return known;
}
