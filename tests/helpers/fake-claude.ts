// Installs the fake `claude` (tests/fixtures/extract/fake-claude.mjs) first on PATH in a temp dir, with a script.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './shared.js';

export interface FakeClaude {
  dir: string;
  bin: string;
  script: string;
  log: string;
  /** Environment for a process that should find the fake: PATH first, plus the parent-session variables it must not see. */
  env: Record<string, string>;
  setScript(steps: unknown[]): void;
  calls(): { n: number; step: Record<string, unknown>; cwd: string }[];
}

export function installFakeClaude(dir: string, steps: unknown[] = [{ echo: true }]): FakeClaude {
  const binDir = path.join(dir, 'bin');
  fs.mkdirSync(binDir, { recursive: true });
  const bin = path.join(binDir, 'claude');
  fs.copyFileSync(path.join(repoRoot, 'tests/fixtures/extract/fake-claude.mjs'), bin);
  fs.chmodSync(bin, 0o755);
  const script = path.join(dir, 'script.json');
  const log = path.join(dir, 'calls.jsonl');
  const fake: FakeClaude = {
    dir,
    bin,
    script,
    log,
    env: {
      PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
      FAKE_CLAUDE_SCRIPT: script,
      FAKE_CLAUDE_LOG: log,
      FAKE_CLAUDE_FORBIDDEN_CWD: process.cwd(),
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: 'cli',
    },
    setScript(s) {
      fs.writeFileSync(script, JSON.stringify(s));
      fs.rmSync(`${script}.count`, { force: true });
      fs.rmSync(log, { force: true });
    },
    calls() {
      if (!fs.existsSync(log)) return [];
      return fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
  };
  fake.setScript(steps);
  return fake;
}
