// The `rules` extractor's markers as users type them in their own language: `#决定`, `#Entscheidung`, `#décision`
// for `#decision`, `记住：`, `Merke dir:`, `retiens :` for `remember:`. Data only; statements.ts reads them with its own
// markers. Each hit names the English marker it stands for.
const HASHTAGS: Record<string, string> = {
  // Chinese, Japanese, Korean
  决定: 'decision', 決定: 'decision', 决策: 'decision', 결정: 'decision',
  纠正: 'cor', 更正: 'cor', 訂正: 'cor', 修正: 'cor', 정정: 'cor',
  记住: 'remember', 記憶: 'remember', 기억: 'remember',
  问题: 'problem', 問題: 'problem', 문제: 'problem',
  // German, French, Spanish, Italian, Portuguese, Dutch
  entscheidung: 'decision', beschluss: 'decision', korrektur: 'cor', merken: 'remember', problem: 'problem',
  décision: 'decision', decision: 'decision', correction: 'cor', retenir: 'remember', problème: 'problem',
  decisión: 'decision', corrección: 'cor', recordar: 'remember',
  decisione: 'decision', correzione: 'cor', ricordare: 'remember',
  decisão: 'decision', correção: 'cor', lembrar: 'remember',
  besluit: 'decision', correctie: 'cor', onthouden: 'remember',
};

/** `remember:` in other languages (a colon, ASCII or full-width, after it); from the user only, as `remember:`. */
const REMEMBER = ['记住', '请记住', '記住', '覚えておいて', '覚えて', '記憶して', '記憶', 'メモ', '기억해', '기억해 줘', 'merke dir', 'merk dir', 'bitte merken', 'retiens', 'souviens-toi', 'à retenir', 'recuerda', 'ricorda', 'lembre-se', 'lembre', 'onthoud'];

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byLength = (a: string, b: string): number => b.length - a.length;
// A Latin word ends at a non-letter; a CJK word may run straight into its statement (#决定以后都用 pnpm).
const HASHTAG_RE = new RegExp(
  String.raw`(?<=^|[\s([*_>])#(${Object.keys(HASHTAGS).sort(byLength).map(esc).join('|')})(?:(?<=[^\p{Script=Latin}])|(?![\p{L}\p{N}_/-]))[ \t]*[:：–—-]?[ \t]*`,
  'gimu',
);
const REMEMBER_RE = new RegExp(String.raw`(?<=^|[\s([*_>])(${REMEMBER.sort(byLength).map(esc).join('|')})[ \t]*[:：][ \t]*`, 'gimu');

export interface LocalizedMarker {
  /** The English marker it stands for (`decision`, `cor`, `remember`, `problem`). */
  marker: string;
  at: number;
  after: number;
}

/** Markers typed in another language, in order; `remember:` words only when `fromUser`. */
export function localizedMarkers(text: string, fromUser: boolean): LocalizedMarker[] {
  const out: LocalizedMarker[] = [];
  for (const m of text.matchAll(HASHTAG_RE)) {
    const marker = HASHTAGS[m[1].toLowerCase()] ?? HASHTAGS[m[1]];
    if (marker) out.push({ marker, at: m.index, after: m.index + m[0].length });
  }
  if (fromUser) for (const m of text.matchAll(REMEMBER_RE)) out.push({ marker: 'remember', at: m.index, after: m.index + m[0].length });
  return out.sort((a, b) => a.at - b.at);
}
