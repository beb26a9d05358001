// Recall in the user's language (issue 31): the one tokenizer cuts Chinese, Japanese and Korean into terms, stems
// German and French with their own stemmers, keeps English terms as they were, and search, the relevance gate and
// dedup similarity work on such notes.
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { describe, expect, it } from 'vitest';
import { markerStatements } from '../../../src/core/transcript/statements.js';
import { detectLanguage } from '../../../src/core/index/language.js';
import { Tokenizer } from '../../../src/core/index/tokenize.js';
import { VaultIndex } from '../../../src/core/index/vault-index.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { judge } from '../../../src/core/recall/gate.js';
import { TermStats } from '../../../src/core/recall/term-stats.js';
import { wordSimilarity } from '../../../src/core/extract/dedup.js';
import { fixedClock, noYield } from '../../helpers/index-fixtures.js';

const tk = new Tokenizer();
const shared = (a: string, b: string): string[] => {
  const x = new Set(tk.terms(a));
  return tk.terms(b).filter((t) => x.has(t));
};

describe('tokenization by script and language', () => {
  it('cuts Chinese without spaces into terms a differently worded question shares', () => {
    const note = '要在多台设备上访问笔记，你需要设置同步方法。';
    const query = '如何在设备之间同步我的仓库';
    expect(shared(note, query)).toEqual(expect.arrayContaining(['设备', '同步']));
    // Function words ("如何", "我的") are not terms.
    expect(tk.terms(query)).not.toContain('如何');
    expect(tk.terms(query)).not.toContain('我的');
  });

  it('cuts Japanese, kanji and kana, so a question meets the note', () => {
    expect(shared('デバイス間で保管庫を同期する方法', 'Obsidian Sync を使うと保管庫をデバイス間で同期できます')).toEqual(expect.arrayContaining(['保管', '同期', 'デバ']));
  });

  it('matches a Korean noun with its particle glued on', () => {
    expect(shared('보관함을 동기화하는 방법', '보관함 동기화')).toEqual(expect.arrayContaining(['보관', '관함', '동기', '기화']));
  });

  it('stems German and French with their own stemmers', () => {
    expect(tk.terms('Notizen zwischen Geräten synchronisieren')).toEqual(tk.terms('die Notiz auf dem Gerät synchronisieren'));
    expect(shared('Comment synchroniser mes appareils ?', 'Pour accéder à vos notes sur plusieurs appareils, vous devez configurer la synchronisation.')).toEqual(['appareil', 'synchronis']);
    // Stop words of the language are dropped, question words with them.
    expect(tk.terms('Wie kann ich meine Notizen sichern?')).toEqual(['notiz', 'sich']);
  });

  it('keeps Latin words and code identifiers whole inside CJK text', () => {
    const terms = tk.terms('用 parseConfig() 读取 config.json 的设置，再跑 npm test');
    expect(terms).toEqual(expect.arrayContaining(['parseconfig', 'config', 'json', '读取', '设置', 'npm', 'test']));
    expect(tk.terms('Obsidian Sync和iCloud')).toEqual(expect.arrayContaining(['obsidian', 'sync', 'icloud']));
  });

  it('leaves English terms exactly as the English stemmer gives them', () => {
    const stem = (oramaTokenizer.createTokenizer({ language: 'english', stemming: true }) as unknown as { stemmer: (w: string) => string }).stemmer;
    const text = 'How do I sync my notes across devices? Die hard fans merge workspaces in Paris, résumé included';
    const expected = 'sync notes across devices die hard fans merge workspaces paris resume included'.split(' ').map(stem);
    expect(tk.terms(text)).toEqual(expected);
  });

  it('detects a text language from its script and its stop words', () => {
    expect(detectLanguage('如何在设备之间同步我的库')).toBe('zh');
    expect(detectLanguage('デバイス間で保管庫を同期する方法')).toBe('ja');
    expect(detectLanguage('기기 간에 보관함을 동기화하는 방법')).toBe('ko');
    expect(detectLanguage('Wie synchronisiere ich meine Notizen zwischen Geräten?')).toBe('de');
    expect(detectLanguage('Comment récupérer mes notes depuis Evernote ?')).toBe('fr');
    expect(detectLanguage('How do I sync my notes across devices?')).toBe('en');
    expect(detectLanguage('die hard')).toBe('en');
    expect(detectLanguage('pnpm workspaces')).toBe('en');
  });

  it('stems a German or French paragraph of an English note in its own language (language per passage)', () => {
    const note = 'How we back up the vault.\n\nWe copy it to a second disk every night.\n\nDie Notizen werden jede Nacht auf eine zweite Festplatte kopiert, damit keine Notiz verloren geht.\n\nLes notes sont copiées chaque nuit sur un second disque.';
    const terms = tk.terms(note, 'en');
    expect(terms).toEqual(expect.arrayContaining([...tk.terms('meine Notiz auf der Festplatte', 'de'), ...tk.terms('copier mes notes', 'fr')]));
    // The English paragraphs keep their English terms, and a short foreign phrase stays English.
    const english = tk.terms('How we back up the vault. We copy it to a second disk every night.', 'en');
    expect(terms.slice(0, english.length)).toEqual(english);
    expect(tk.terms('We use it.\n\nDie Notizen.', 'en')).toEqual(tk.terms('We use it. Die Notizen.', 'en'));
  });

  it('shows the user the words of a CJK query, not its terms only', () => {
    const said = tk.wordsByTerm('怎么同步 Obsidian 仓库');
    expect(said.get('同步')).toBe('同步');
    expect(said.get('obsidian')).toBe('Obsidian');
  });
});

describe('search, gate and dedup in other languages', () => {
  const files: Record<string, string> = {
    'Hilfe/Notizen synchronisieren.md': '# Notizen synchronisieren\n\nUm auf deine Notizen auf mehreren Geräten zugreifen zu können, musst du eine Synchronisierungsmethode einrichten.',
    'Hilfe/Tastenkürzel.md': '# Tastenkürzel\n\nDu kannst jedem Befehl ein eigenes Tastenkürzel zuweisen.',
    '帮助/同步笔记.md': '# 在设备之间同步笔记\n\n要在多台设备上访问笔记，你需要设置一种同步方法，例如 Obsidian Sync 或 iCloud。',
    '帮助/快捷键.md': '# 快捷键\n\n你可以为每个命令设置自己的快捷键。',
    'Help/Sync your notes.md': '# Sync your notes across devices\n\nTo access your notes on several devices you need a sync method.',
  };
  const built = async (): Promise<VaultIndex> => {
    const index = new VaultIndex({ vault: new MemoryVault({ files, clock: fixedClock() }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    return index;
  };

  it('finds the Chinese note for a Chinese question and the German note for a German one, in one vault', async () => {
    const index = await built();
    expect((await index.search('怎么在手机和电脑之间同步我的仓库？', { mode: 'bm25' })).hits[0]?.path).toBe('帮助/同步笔记.md');
    expect((await index.search('如何给命令设置快捷键', { mode: 'bm25' })).hits[0]?.path).toBe('帮助/快捷键.md');
    expect((await index.search('Wie synchronisiere ich meine Notiz zwischen Geräten?', { mode: 'bm25' })).hits[0]?.path).toBe('Hilfe/Notizen synchronisieren.md');
    expect((await index.search('how do I sync my notes between devices', { mode: 'bm25' })).hits[0]?.path).toBe('Help/Sync your notes.md');
  });

  it('leaves the grammar of a Japanese question (its hiragana pairs) out of its search terms, not out of notes', async () => {
    const notes = {
      'ヘルプ/デイリーノート.md': '# デイリーノート\n\n毎日の日記をノートとして作るには、デイリーノートのプラグインを有効にします。',
      'ヘルプ/同期.md': '# 同期\n\nデバイス間でノートを同期するには、どうすればいいですか？設定から同期を選びます。',
      'ヘルプ/まとめ.md': '# まとめ\n\nひらがなだけの ことば も さがせます。',
    };
    const index = new VaultIndex({ vault: new MemoryVault({ files: notes, clock: fixedClock() }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const r = await index.search('毎日の日記用ノートを作るにはどうすればいいですか？', { mode: 'bm25' });
    expect(r.terms).not.toContain('には');
    expect(r.terms).not.toContain('すれ');
    expect(r.terms).toEqual(expect.arrayContaining(['日記', 'ノー']));
    expect(r.hits[0]?.path).toBe('ヘルプ/デイリーノート.md');
    // A question in hiragana alone keeps its pairs.
    expect((await index.search('ひらがな', { mode: 'bm25' })).hits[0]?.path).toBe('ヘルプ/まとめ.md');
  });

  it('finds a German note for bare keywords, which show no language of their own', async () => {
    const index = await built();
    expect((await index.search('Notizen Geräten synchronisieren', { mode: 'bm25' })).hits[0]?.path).toBe('Hilfe/Notizen synchronisieren.md');
    expect((await index.search('Tastenkürzel zuweisen', { mode: 'bm25' })).hits[0]?.path).toBe('Hilfe/Tastenkürzel.md');
    // English keywords keep their English terms.
    expect((await index.search('sync devices', { mode: 'bm25' })).terms).toEqual(tk.terms('sync devices'));
  });

  it('finds an English note by its German section for a German question', async () => {
    const mixed = {
      'Help/Backups.md': '# Backups\n\nWe copy the vault to a second disk every night, so that no note is lost when the laptop fails. The copy runs at two in the morning and takes about a minute; if it fails, the next one starts again from the last good copy.\n\nDie Notizen werden jede Nacht auf eine zweite Festplatte kopiert, damit nichts verloren geht.',
      'Help/Disks.md': '# Disks\n\nA second disk for the vault: any external drive works.',
      'Hilfe/Sicherung.md': '# Sicherung\n\nEine Sicherung der Einstellungen legst du im Ordner an.',
    };
    const index = new VaultIndex({ vault: new MemoryVault({ files: mixed, clock: fixedClock() }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    // "Notiz" and "kopieren" meet "Notizen" and "kopiert" only through the German stemmer.
    expect((await index.search('Wie kann ich eine Notiz kopieren?', { mode: 'bm25' })).hits[0]?.path).toBe('Help/Backups.md');
  });

  it('starts a long Chinese note\'s excerpt where the question\'s words are', async () => {
    const long = `${'这一段只是介绍，讲的是别的事情。'.repeat(30)}要恢复以前的版本，请打开版本历史记录并选择一个快照。`;
    const index = new VaultIndex({ vault: new MemoryVault({ files: { '帮助/版本.md': long }, clock: fixedClock() }), clock: fixedClock(), yieldNow: noYield });
    await index.build();
    const hit = (await index.search('怎样恢复以前的版本？', { mode: 'bm25' })).hits[0];
    expect(hit?.snippet).toContain('恢复以前的版本');
  });

  it('lets the relevance gate pass a Chinese and a German note on topic, and not off topic', () => {
    const stats = new TermStats();
    for (const [p, t] of Object.entries(files)) stats.set(p, t);
    const zh = stats.termsOf('帮助/同步笔记.md')!;
    expect(judge('怎样在设备之间同步笔记？', zh, stats).pass).toBe(true);
    expect(judge('怎么给命令设置快捷键？', zh, stats).pass).toBe(false);
    const de = stats.termsOf('Hilfe/Notizen synchronisieren.md')!;
    expect(judge('Wie kann ich Notizen zwischen meinen Geräten synchronisieren?', de, stats).pass).toBe(true);
    expect(judge('Wie lege ich ein Tastenkürzel für einen Befehl fest?', de, stats).pass).toBe(false);
  });

  it('finds a restated Chinese or German note as similar (dedup)', async () => {
    const sim = wordSimilarity(Object.entries(files));
    expect((await sim.findSimilar('你需要设置一种同步方法，才能在多台设备上访问笔记。'))[0]?.path).toBe('帮助/同步笔记.md');
    expect((await sim.findSimilar('Für mehrere Geräte musst du eine Synchronisierungsmethode für deine Notizen einrichten.'))[0]?.path).toBe('Hilfe/Notizen synchronisieren.md');
  });
});

describe('rule markers in other languages', () => {
  const said = (text: string): { kind: string; marker?: string; text: string }[] => markerStatements(text, 'user').map((m) => ({ kind: m.kind, marker: m.marker, text: m.text }));
  it('reads #decision and remember: as users type them in their language', () => {
    expect(said('#决定 以后都用 pnpm 管理依赖')).toEqual([{ kind: 'decision', marker: 'decision', text: '以后都用 pnpm 管理依赖' }]);
    expect(said('記憶: テストは vitest で書く')).toEqual([{ kind: 'insight', marker: 'remember', text: 'テストは vitest で書く' }]);
    expect(said('Merke dir: wir nutzen pnpm statt npm')).toEqual([{ kind: 'insight', marker: 'remember', text: 'wir nutzen pnpm statt npm' }]);
    expect(said('#décision on garde SQLite pour le cache')).toEqual([{ kind: 'decision', marker: 'decision', text: 'on garde SQLite pour le cache' }]);
    expect(said('#decision we keep SQLite for the cache')).toEqual([{ kind: 'decision', marker: 'decision', text: 'we keep SQLite for the cache' }]);
    expect(said('#Entscheidungsbaum ist ein Wort, kein Marker')).toEqual([]);
    expect(markerStatements('記憶: テストは vitest で書く', 'assistant')).toEqual([]);
  });
});
