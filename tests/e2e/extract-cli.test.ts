// `engram extract` and `engram import` as real processes: a fake claude on PATH, a temp vault and ENGRAM_HOME,
// and a process killed at each injected fault point, then rerun.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { installFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { repoRoot } from '../helpers/shared.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { budgetsFrom, extractionBudgetStatus, validatePassFrom } from '../../sidecar/hosting/extract-runner.js';
import { effectiveConfig } from '../../src/core/config.js';
import { createBackend } from '../../sidecar/hosting/backends.js';
import { loadConfig } from '../../sidecar/hosting/config-file.js';
import { dailyLimit } from '../../src/core/extract/usage.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';
import { configOf } from '../helpers/config-reader.js';

const fixtures = path.join(repoRoot, 'tests/fixtures/extract');
const transcript = path.join(fixtures, 'markers-a.jsonl');
let root: string;
let fake: FakeClaude;
let n = 0;

beforeAll(() => {
  root = makeTempDir('engram-extract-cli-');
  fake = installFakeClaude(path.join(root, 'fake'));
});
afterAll(() => removeDir(root));

function fresh() {
  const dir = path.join(root, `case-${n++}`);
  const vault = path.join(dir, 'vault');
  const home = path.join(dir, 'home');
  fs.mkdirSync(vault, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const env = { ...fake.env, ENGRAM_HOME: home, HOME: home, ENGRAM_VAULT: '', ENGRAM_FAULT: '' };
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli([...args, '--vault', vault], { env: { ...env, ...extra } });
  return { dir, vault, home, cli };
}

/** Every file in the vault (hidden ones too), with creation times masked: runs at different seconds must compare equal. */
function vaultFiles(vault: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[path.relative(vault, full)] = fs.readFileSync(full, 'utf8').replace(/^(created|updated): .*$/gm, '$1: <time>');
    }
  };
  walk(vault);
  return out;
}

describe('engram extract', () => {
  it('writes the expected notes, then adds nothing on a second run', async () => {
    fake.setScript([{ echo: true }]);
    const c = fresh();
    const first = c.cli(['extract', transcript, '--backend', 'claude']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/1 window \(1 sent to claude, 0 replayed from the journal\); 5 beats, wrote 5 new/);
    const files = Object.keys(vaultFiles(c.vault)).sort();
    expect(files).toHaveLength(5);
    expect(files.every((f) => f.startsWith('Engram/Projects/acme/'))).toBe(true);
    expect(files.some((f) => /pnpm workspaces/.test(f))).toBe(true);
    const second = c.cli(['extract', transcript, '--backend', 'claude']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/nothing new to extract/);
    expect(fake.calls()).toHaveLength(1);
    expect(Object.keys(vaultFiles(c.vault))).toHaveLength(5);
    const runs = fs.readFileSync(path.join(c.home, 'logs/extract-runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(runs.map((r) => r.beats.created)).toEqual([5, 0]);
    const calls = fs.readFileSync(path.join(c.home, 'logs/llm-calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls[0]).toMatchObject({ backend: 'claude', model: 'claude-haiku-4-5-fake', ok: true, mode: 'foreground' });
    expect(calls[0].inputTokens).toBeGreaterThan(0);
    // What `engram status` shows: tokens used today against the claude default budget.
    const budgetEnv = { ...process.env, ENGRAM_HOME: c.home, HOME: c.home };
    const status = await extractionBudgetStatus(hostFacts(budgetEnv), configOf(budgetEnv)());
    expect(status.backend).toBe('claude');
    expect(status.lines[0]).toMatch(new RegExp(`^claude: ${(calls[0].inputTokens + calls[0].outputTokens).toLocaleString('en-US')} of 200,000 tokens in the last 24 h \\(1 calls\\); [\\d,]+ left$`));
  });

  it('--dry-run writes nothing and calls no LLM; --json prints the run', () => {
    fake.setScript([{ echo: true }]);
    const c = fresh();
    const before = fake.calls().length;
    const r = c.cli(['extract', transcript, '--backend', 'claude', '--dry-run', '--json']);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run.dryRun).toBe(true);
    expect(fake.calls().length).toBe(before);
    expect(run.wouldSend).toMatchObject({ windows: 1 });
    expect(run.notes).toEqual([]);
    const rules = JSON.parse(c.cli(['extract', transcript, '--backend', 'rules', '--dry-run', '--json']).stdout);
    expect(rules.notes.filter((x: { action: string }) => x.action === 'created').length).toBeGreaterThan(0);
    expect(vaultFiles(c.vault)).toEqual({});
    expect(fs.existsSync(path.join(c.home, 'vaults'))).toBe(false);
  });

  it('--backend rules works offline on committed transcripts', () => {
    const c = fresh();
    const r = c.cli(['extract', path.join(fixtures, 'markers-c.jsonl'), '--backend', 'rules']);
    expect(r.code).toBe(0);
    expect(Object.keys(vaultFiles(c.vault))).toHaveLength(7);
  });

  it('reports bad input with one line and exit 1', () => {
    const c = fresh();
    const missing = c.cli(['extract', path.join(c.dir, 'nope.jsonl'), '--backend', 'rules']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such transcript/);
    const bad = c.cli(['extract', transcript, '--backend', 'gpt9']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown backend "gpt9"/);
    const notTranscript = c.cli(['extract', path.join(fixtures, 'markers.expected.json'), '--backend', 'rules']);
    expect(notTranscript.code).toBe(1);
  });

  describe('a run killed at an injected fault, then rerun, leaves exactly the notes of an uninterrupted run', () => {
    let expected: Record<string, string>;
    beforeAll(() => {
      fake.setScript([{ echo: true }]);
      const c = fresh();
      expect(c.cli(['extract', transcript, '--backend', 'claude']).code).toBe(0);
      expected = vaultFiles(c.vault);
      expect(Object.keys(expected)).toHaveLength(5);
    });

    for (const fault of ['after-journal', 'after-note:1', 'after-note:3', 'before-rename:1', 'before-rename:2', 'before-rename:4', 'before-ledger']) {
      it(fault, () => {
        fake.setScript([{ echo: true }]);
        const c = fresh();
        const killed = c.cli(['extract', transcript, '--backend', 'claude'], { ENGRAM_FAULT: fault });
        expect(killed.code).not.toBe(0);
        expect(killed.stderr).toMatch(`injected fault at ${fault.split(':')[0]}`);
        const rerun = c.cli(['extract', transcript, '--backend', 'claude']);
        expect(rerun.code).toBe(0);
        // No partial note, no duplicate, no lost beat; the rerun also removed the temp file the crash left.
        expect(vaultFiles(c.vault)).toEqual(expected);
        const journals = fs.readdirSync(path.join(c.home, 'vaults', fs.readdirSync(path.join(c.home, 'vaults'))[0], 'jobs')).filter((f) => f.endsWith('.json'));
        expect(journals).toEqual([]);
        // The validated reply was journalled before the crash, so the model was called once (except when the journal itself was cut).
        expect(fake.calls().length).toBe(fault === 'before-rename:1' ? 2 : 1);
        expect(c.cli(['extract', transcript, '--backend', 'claude']).stdout).toMatch(/nothing new to extract/);
      });
    }
  });
});

describe('engram import', () => {
  it('extracts every conversation of Claude.ai and ChatGPT exports with progress, and resumes', () => {
    const c = fresh();
    const r = c.cli(['import', path.join(fixtures, 'claude-ai-export.json'), '--backend', 'rules']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[#+\] 3\/3 conversations/);
    expect(r.stdout).toMatch(/3 conversations \(0 already done\), wrote 3 notes/);
    const files = vaultFiles(c.vault);
    expect(Object.values(files).filter((t) => t.includes('engram_source: import-claude'))).toHaveLength(3);
    const again = c.cli(['import', path.join(fixtures, 'claude-ai-export.json'), '--backend', 'rules']);
    expect(again.stdout).toMatch(/3 conversations \(3 already done\), wrote 0 notes/);
    const gpt = c.cli(['import', path.join(fixtures, 'chatgpt-export.json'), '--backend', 'rules']);
    expect(gpt.stdout).toMatch(/1 conversations \(0 already done\), wrote 1 notes/);
    expect(Object.values(vaultFiles(c.vault)).filter((t) => t.includes('engram_source: import-chatgpt'))).toHaveLength(1);
    const dry = fresh().cli(['import', path.join(fixtures, 'claude-ai-export.json'), '--backend', 'rules', '--dry-run']);
    expect(dry.stdout).toMatch(/would write 3 notes/);
  });

  it('an import killed half way resumes without duplicates', () => {
    const c = fresh();
    const exportFile = path.join(fixtures, 'claude-ai-export.json');
    const killed = c.cli(['import', exportFile, '--backend', 'rules'], { ENGRAM_FAULT: 'after-note:2' });
    expect(killed.code).not.toBe(0);
    expect(Object.keys(vaultFiles(c.vault))).toHaveLength(2);
    const resumed = c.cli(['import', exportFile, '--backend', 'rules']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/3 conversations \(2 already done\), wrote 1 notes/);
    expect(Object.keys(vaultFiles(c.vault))).toHaveLength(3);
  });

  it('refuses a file that is not an export', () => {
    const c = fresh();
    const r = c.cli(['import', path.join(fixtures, 'markers.expected.json'), '--backend', 'rules']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/holds no Claude.ai or ChatGPT conversations/);
  });
});

describe('budget: engram status and background extraction apply the same limit', () => {
  const cases: [string, Record<string, unknown>, number, Record<string, string | undefined>?][] = [
    ['claude by default (the subscription login)', { backend: 'claude' }, 200_000, { ANTHROPIC_API_KEY: undefined }],
    ['claude on an API key until a budget is set', { backend: 'claude' }, 0],
    ['claude on an API key with a budget', { backend: 'claude', budget: { tokens_per_day: 50_000 } }, 50_000],
    ['anthropic until a budget is set', { backend: 'anthropic' }, 0],
    ['a remote openai until a budget is set', { backend: 'openai' }, 0],
    ['a local openai server', { backend: 'openai', openai: { url: 'http://127.0.0.1:1234/v1' } }, Number.POSITIVE_INFINITY],
    ['ollama', { backend: 'ollama' }, Number.POSITIVE_INFINITY],
    ['anthropic with a budget', { backend: 'anthropic', budget: { tokens_per_day: 40_000 } }, 40_000],
    ['claude with a budget of 0', { backend: 'claude', budget: { tokens_per_day: 0 } }, 0],
  ];
  for (const [label, file, expected, extraEnv] of cases) {
    it(label, async () => {
      const c = fresh();
      fs.writeFileSync(path.join(c.home, 'config.json'), JSON.stringify({ version: 1, ...file }));
      const env = { ...process.env, ENGRAM_HOME: c.home, HOME: c.home, ANTHROPIC_API_KEY: 'test-key', OPENAI_API_KEY: 'test-key', ...extraEnv };
      const facts = hostFacts(env);
      const status = await extractionBudgetStatus(facts, configOf(env)());
      const mine = status.backends.find((b) => b.backend === status.backend)!;
      expect(mine.limit).toBe(expected);
      // What the extraction run would apply: the real backend object's own `paid`, and the same budgets.
      const { config } = loadConfig(facts);
      const backend = createBackend(config.get('backend'), config, { env });
      expect(dailyLimit(backend.name, backend.paid, budgetsFrom(config))).toBe(mine.limit);
      if (expected === 0 && !file.budget) expect(status.lines[0]).toMatch(/no background budget set/);
    });
  }
});

describe('the validate pass: config key extract.validate, ENGRAM_EXTRACT_VALIDATE overrides', () => {
  it('reads the key (default off) and lets the environment override it either way', () => {
    expect(validatePassFrom(effectiveConfig({ version: 1 }, {}), {})).toBe(false);
    expect(validatePassFrom(effectiveConfig({ version: 1, extract: { validate: true } }, {}), {})).toBe(true);
    expect(validatePassFrom(effectiveConfig({ version: 1, extract: { validate: true } }, {}), { ENGRAM_EXTRACT_VALIDATE: '0' })).toBe(false);
    expect(validatePassFrom(effectiveConfig({ version: 1 }, {}), { ENGRAM_EXTRACT_VALIDATE: '1' })).toBe(true);
    // A value that is not a boolean is ignored: the config decides.
    expect(validatePassFrom(effectiveConfig({ version: 1, extract: { validate: true } }, {}), { ENGRAM_EXTRACT_VALIDATE: 'maybe' })).toBe(true);
  });

  it('engram extract makes the second call only when extract.validate is on, and not when the environment says 0', () => {
    for (const [file, env, calls] of [[{}, {}, 1], [{ extract: { validate: true } }, {}, 2], [{ extract: { validate: true } }, { ENGRAM_EXTRACT_VALIDATE: '0' }, 1]] as const) {
      fake.setScript([{ echo: true }]);
      const c = fresh();
      fs.writeFileSync(path.join(c.home, 'config.json'), JSON.stringify({ version: 1, ...file }));
      const r = c.cli(['extract', transcript, '--backend', 'claude'], { ...env });
      expect(r.code, r.stderr).toBe(0);
      expect(fake.calls(), JSON.stringify(file)).toHaveLength(calls);
    }
  });
});
