// `npm run docs:images`: regenerates the README's pictures in docs/images/ from the real code, never by hand.
// 1. The panes: runs the Chromium pane tests (tests/dom), which save their screenshots in .tmp/screenshots/, and copies
//    the light-theme ones.
// 2. A Claude Code session receiving recalled notes: builds the CLI, starts a host over a small vault in a temporary
//    sandbox, sends the real `engram hook SessionStart` and `engram hook UserPromptSubmit` the JSON Claude Code sends,
//    and renders what they return (the context Claude Code adds for the model) as a page in headless Chromium.
// Needs Chromium (apt-get install -y chromium, or $ENGRAM_CHROMIUM); exits 1 saying why when it is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromiumMissing, openPage } from './helpers/chromium';
import { runCli } from './helpers/cli';
import { hostListening, makeSandbox } from './helpers/host';
import { repoRoot } from './helpers/shared';

const images = path.join(repoRoot, 'docs', 'images');
const shots = path.join(repoRoot, '.tmp', 'screenshots');

/** Screenshot a pane test saves -> the picture it becomes in docs/images. */
const PANES: Record<string, string> = {
  'review-light': 'review.png',
  'restructure-light': 'restructure.png',
  'search-light': 'search.png',
  'related-light': 'related.png',
  'commands-merge-light': 'merge.png',
  'commands-split-light': 'split.png',
};

function panes(): void {
  for (const name of Object.keys(PANES)) fs.rmSync(path.join(shots, `${name}.png`), { force: true });
  const tests = ['review', 'restructure', 'search', 'related', 'commands'].map((t) => `tests/dom/${t}.test.ts`);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'dom', ...tests], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the pane tests failed: docs/images left as it was');
  for (const [name, image] of Object.entries(PANES)) {
    const shot = path.join(shots, `${name}.png`);
    if (!fs.existsSync(shot)) throw new Error(`the pane tests saved no ${name}.png (were they skipped?)`);
    fs.copyFileSync(shot, path.join(images, image));
    console.log(`docs/images/${image}  <- ${path.relative(repoRoot, shot)}`);
  }
}

const NOTES: Record<string, string> = {
  'Engram/Projects/acme/Use pnpm workspaces.md':
    '---\ntype: decision\nproject: acme\nsummary: The acme monorepo uses pnpm workspaces because npm installs took four minutes\nupdated: 2026-11-01T10:00:00+00:00\n---\nWe moved the acme monorepo from npm to pnpm workspaces: installs went from four minutes to forty seconds.\n',
  'Engram/Projects/acme/API base path.md':
    '---\ntype: correction\nproject: acme\nsummary: The API base path is /api/v2, not /api\nupdated: 2026-11-02T10:00:00+00:00\n---\nAll routes live under /api/v2; /api is the old gateway and answers 404.\n',
  'Engram/Projects/acme/Deploy from the repository root.md':
    '---\ntype: problem\nproject: acme\nsummary: The deploy script only works from the repository root\nupdated: 2026-11-03T10:00:00+00:00\n---\n`scripts/deploy.sh` reads `./infra` relative to the current folder, so run it from the repository root.\n',
  'Engram/Inbox/Retry the artifact upload once.md':
    '---\ntype: correction\nsummary: When the artifact upload times out, retry the upload once; raising the upload timeout did not help\nupdated: 2026-10-20T10:00:00+00:00\n---\nThe artifact upload to the bucket times out about one run in five. A longer timeout only made the failing runs slower; one retry of the upload gets it through.\n',
  'Engram/Projects/other/Deploy with fly.md': '---\ntype: decision\nproject: other\nsummary: The other app deploys to fly.io\n---\nfly deploy.\n',
  'Notes/Sourdough starter.md': '# Sourdough starter\nFeed it every twelve hours at room temperature.\n',
  'Notes/Bicycle chain.md': '# Bicycle chain\nClean and lubricate the chain every 300 km.\n',
};
const PROMPT = 'the artifact upload timed out again, should I raise the upload timeout?';

type HookOut = { hookSpecificOutput?: { additionalContext?: string } };

/** Runs the real hooks against a small vault; returns what each one adds to the session's context. */
async function sessionContext(): Promise<{ start: string; prompt: string }> {
  execFileSync(process.execPath, ['esbuild.config.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  const sb = makeSandbox();
  try {
    for (const [rel, text] of Object.entries(NOTES)) sb.writeNote(rel, text);
    const cwd = path.join(sb.root, 'acme');
    fs.mkdirSync(cwd);
    const host = sb.serve();
    await hostListening(sb, host);
    const hook = (event: string, extra: Record<string, unknown>): string => {
      const r = runCli(['hook', event], { env: sb.env, input: JSON.stringify({ session_id: 'docs-1', cwd, hook_event_name: event, ...extra }) });
      if (r.code !== 0 || !r.stdout.trim()) throw new Error(`engram hook ${event} gave no context (exit ${r.code}): ${r.stderr}`);
      const ctx = (JSON.parse(r.stdout) as HookOut).hookSpecificOutput?.additionalContext;
      if (!ctx) throw new Error(`engram hook ${event} printed no additionalContext: ${r.stdout}`);
      return ctx;
    };
    // The first context request waits for the index: the hook starts nothing here, the host is already up.
    return { start: hook('SessionStart', { source: 'startup' }), prompt: hook('UserPromptSubmit', { prompt: PROMPT }) };
  } finally {
    await sb.cleanup();
  }
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const CSS = `
body { margin: 0; background: #ffffff; font: 14px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; color: #24292f; }
.term { margin: 16px; border: 1px solid #d0d7de; border-radius: 8px; overflow: hidden; width: 980px; }
.bar { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 6px 12px; font: 13px system-ui, sans-serif; color: #57606a; }
.body { padding: 12px 16px; }
.prompt { color: #0550ae; font-weight: bold; margin: 10px 0 4px; }
.hook { color: #6e7781; margin: 10px 0 4px; font: 12px system-ui, sans-serif; }
pre { margin: 0; padding: 8px 10px; background: #f6f3ff; border-left: 3px solid #8a5cf5; white-space: pre-wrap; word-break: break-word; }
.foot { font: 12px system-ui, sans-serif; color: #6e7781; padding: 8px 16px 12px; border-top: 1px solid #eaeef2; }
`;

async function sessionImage(): Promise<void> {
  const ctx = await sessionContext();
  const body = `<div class="term">
<div class="bar">Claude Code · ~/src/acme · what Engram's hooks add to the model's context</div>
<div class="body">
<div class="hook">SessionStart hook (startup): the project's notes</div>
<pre>${esc(ctx.start)}</pre>
<div class="prompt">&gt; ${esc(PROMPT)}</div>
<div class="hook">UserPromptSubmit hook: notes that match this prompt, once per session</div>
<pre>${esc(ctx.prompt)}</pre>
</div>
<div class="foot">Real output of <code>engram hook SessionStart</code> and <code>engram hook UserPromptSubmit</code> against a ${Object.keys(NOTES).length}-note vault, made by <code>npm run docs:images</code>.</div>
</div>`;
  const script = `document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style'); s.textContent = ${JSON.stringify(CSS)}; document.head.append(s); document.body.innerHTML = ${JSON.stringify(body)}; document.body.dataset.ready = '1'; });`;
  const p = await openPage(script, {}, { viewport: { width: 1012, height: 400 } });
  try {
    await p.page.waitForSelector('body[data-ready="1"]');
    await p.page.locator('.term').screenshot({ path: path.join(images, 'claude-code-session.png') });
    console.log('docs/images/claude-code-session.png  <- engram hook SessionStart, UserPromptSubmit');
  } finally {
    await p.close();
  }
}

const missing = chromiumMissing();
if (missing) {
  console.error(`docs:images: ${missing}`);
  process.exit(1);
}
fs.mkdirSync(images, { recursive: true });
const only = process.argv[2];
if (only !== 'session') panes();
if (only !== 'panes') await sessionImage();
