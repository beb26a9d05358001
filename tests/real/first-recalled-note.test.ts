// The README's walk from setup to a recalled note, done as it says with the real Claude Code CLI: `engram setup
// --yes` on a fresh HOME whose Obsidian knows one vault (no API key, no `claude` on PATH, so the offline `rules`
// extractor), then a session that says the README's example sentence outright, then the README's search command, then
// the next session in that project. What the README tells a user to type and expect is read from the README itself,
// so the page and this test cannot drift apart.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, waitFor } from '../helpers/host.js';
import { repoRoot } from '../helpers/shared.js';
import { allText, realCli, realSuiteTitle, runClaude, startFakeAnthropic } from '../helpers/real-cli.js';

const claude = realCli('claude');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** What Claude Code's `--debug` log says of its hooks (their output, their time-outs). */
function hookDebugLines(home: string): string {
  const dir = path.join(home, '.claude', 'debug');
  if (!fs.existsSync(dir)) return '(no Claude Code debug log)';
  const lines = fs.readdirSync(dir).filter((f) => f.endsWith('.txt')).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'));
  return lines.filter((l) => /Hooks?[: ]|engram hook/.test(l)).slice(-40).join('\n');
}

/** The README's "Your first recalled note" section: the sentence to say, the search to run. */
function readmeWalk(): { say: string; search: string[] } {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = /^## Your first recalled note\n([\s\S]*?)\n## /m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "Your first recalled note" section');
  const say = /say something worth keeping outright: `([^`]+)`/.exec(section)?.[1];
  const search = /`engram (search [^`]+)`/.exec(section)?.[1];
  if (!say || !search) throw new Error('the README section no longer names a sentence to say and a search to run');
  return { say, search: search.split(' ').map((w) => w.replace(/^"|"$/g, '')) };
}

describe.skipIf('skip' in claude)(realSuiteTitle('claude', 'the README from setup to a recalled note'), () => {
  const bin = (claude as { bin: string }).bin;

  it('setup, a session that says it, the search, and the next session starts with the note', async () => {
    const walk = readmeWalk();
    const sb = makeSandbox();
    cleanups.push(() => sb.cleanup());
    // A new user: the vault is the one Obsidian knows, not an environment variable.
    const env: NodeJS.ProcessEnv = { ...sb.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
    delete env.ENGRAM_VAULT;
    delete env.CLAUDE_CONFIG_DIR;
    delete env.XDG_CONFIG_HOME;
    const obsidian = path.join(sb.home, '.config', 'obsidian');
    fs.mkdirSync(obsidian, { recursive: true });
    fs.writeFileSync(path.join(obsidian, 'obsidian.json'), JSON.stringify({ vaults: { a: { path: sb.vault, ts: 1000, open: true } } }));
    sb.writeNote('Notes/Groceries.md', '# Groceries\nOat milk, lemons.\n');

    const setup = runCli(['setup', '--yes'], { env, timeout: 90_000 });
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/rules/);

    const cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    const server = await startFakeAnthropic(() => ({ text: 'Noted.' }));
    cleanups.push(() => server.close());
    // The hooks setup registered reach this sandbox's Engram through the session's environment, as a user's would
    // reach ~/.engram.
    const hookEnv = { ENGRAM_HOME: sb.engramHome, XDG_RUNTIME_DIR: sb.env.XDG_RUNTIME_DIR };
    const first = await runClaude({ bin, home: sb.home, cwd, prompt: walk.say, server, env: hookEnv });
    expect(first.code, first.stderr).toBe(0);

    // "When the session ends, the host files it as a note under Engram/ in your vault, with the quote it came from."
    const noteText = (): string | undefined => {
      const dir = path.join(sb.vault, 'Engram');
      if (!fs.existsSync(dir)) return undefined;
      const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.md') && !f.startsWith('Log'));
      return files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).find((t) => t.includes('/api/v2'));
    };
    await waitFor(() => noteText() !== undefined, 60_000, 'the note the session said outright', sb.logs);
    const note = noteText()!;
    expect(note).toMatch(/^---\n[\s\S]*\n---\n/);
    expect(note).toContain(walk.say.replace(/^remember:\s*/i, ''));

    // "`engram status` shows the run, `engram search …` finds the note."
    const st = runCli(['status'], { env });
    expect(st.code, st.stderr).toBe(0);
    const found = runCli(walk.search, { env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout, sb.logs()).toMatch(/API base path|api\/v2/i);

    // "The next session in that project starts with it in its context."
    const before = server.mainRequests().length;
    const next = await runClaude({ bin, home: sb.home, cwd, prompt: 'what should I know before touching the routes?', server, env: hookEnv, args: ['--debug'] });
    expect(next.code, next.stderr).toBe(0);
    const seen = server.mainRequests().slice(before).map((r) => allText(r.body)).join('\n');
    // A failure says why: what the hooks and the host logged, and what Claude Code said of its hooks.
    const why = () => `the next session's model request had no note in its SessionStart context\n${sb.logs()}\n--- Claude Code's hook lines\n${hookDebugLines(sb.home)}`;
    expect(seen, why()).toMatch(/SessionStart hook additional context:[\s\S]*<engram-memory[^>]*>[\s\S]*\/api\/v2[\s\S]*<\/engram-memory>/);
  });
});
