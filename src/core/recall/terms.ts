// Tokens for relevance decisions: lower case, stop words out, a light plural fold. Shared by the gate and the fallback index.

const STOP = new Set(
  ('a about above after again against all also am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could couldn did didn do does doesn doing don down during each few for from further get got had hadn has hasn have ' +
    'haven having he her here hers herself him himself his how i if in into is isn it its itself just let me more most mustn my myself ' +
    'no nor not now of off on once only or other ought our ours ourselves out over own same shan she should shouldn so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very was wasn we were weren ' +
    'what when where which while who whom why will with won would wouldn you your yours yourself yourselves ll re ve d s t m ' +
    'hey hi hello thanks thank please ok okay yes yeah sure really much many lot well like just going gonna want wanna know think ' +
    'one two get make made way thing things something anything everything today tomorrow yesterday good great nice new old see use used using ' +
    'tell say said us via etc may might must shall e g ie eg vs per')
    .split(' '),
);

export function isStopWord(t: string): boolean {
  return STOP.has(t);
}

function fold(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') && !t.endsWith('us') && !t.endsWith('is')) return t.slice(0, -1);
  return t;
}

/** All tokens (stop words included), folded. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu)) {
    let t = m[0].replace(/^[-_]+|[-_]+$/g, '');
    if (t.endsWith("'s")) t = t.slice(0, -2);
    if (t) out.push(fold(t));
  }
  return out;
}

/** The text's own words by the content term each gives (the first wins), to show people words rather than terms. */
export function wordsByTerm(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu)) {
    const word = m[0].replace(/^[-_]+|[-_']+$/g, '').replace(/'s$/i, '');
    const [t] = tokenize(word);
    if (t && t.length > 1 && !STOP.has(t) && !out.has(t)) out.set(t, word);
  }
  return out;
}

/** Distinct content terms: no stop words, no single characters. */
export function contentTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const t of tokenize(text)) if (t.length > 1 && !STOP.has(t)) seen.add(t);
  return [...seen];
}
