// The end of each test tier (vitest.config.ts reporters), after Vitest's own summary:
// - how many tests skipped and why (a skipped suite names its reason in its title), so a run that skipped the panes
//   cannot pass for a full one;
// - a check that the tests left nothing: no process carrying this run's marker (tests/helpers/leftovers.ts) and
//   nothing in the run's temp folder (TMPDIR, which every test and every process it starts inherits). Anything left
//   is stopped and removed, named, and fails the run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';
import { RUN_VAR, killMarked, processesMarked, processesUnder, removeFolder, settle, unique, type Found } from './leftovers.js';
import { listFiles } from './temp.js';

/** `file: suite > suite` for a skipped test: the suite titles carry the reason (or the test's own title). */
function skipReason(t: TestCase, root: string): string {
  const titles: string[] = [];
  for (let p = t.parent; p.type === 'suite'; p = p.parent) titles.unshift(p.name);
  return `${path.relative(root, t.module.moduleId)}: ${titles.join(' > ') || t.name}`;
}

/** Caches tools keep in the temp folder, not anything a test made: tsx's (a test host runs through `--import tsx`). */
const TOOL_CACHES = /^tsx-\d+$/;

export default class RunReporter implements Reporter {
  private root = process.cwd();
  private runDir = '';
  private runId = '';

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    // A temp folder for the run: every test and every process it starts makes its temp folders there (os.tmpdir()).
    this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-t-'));
    this.runId = `${process.pid}-${path.basename(this.runDir)}`;
    process.env.TMPDIR = this.runDir;
    process.env[RUN_VAR] = this.runId;
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const reasons = new Map<string, number>();
    const broken: string[] = [];
    for (const m of testModules) {
      // A file that failed outside its tests (a throwing beforeAll, an import error) leaves its tests unrun: that is a
      // failure of the file, never a skip.
      const hookFailed = m.state() === 'failed' && m.errors().length > 0;
      if (hookFailed) broken.push(`${path.relative(this.root, m.moduleId)}: ${m.errors()[0]?.message ?? 'failed outside its tests'}`);
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else if (hookFailed) counts.failed++;
        else {
          counts.skipped++;
          const why = skipReason(t, this.root);
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
        }
      }
    }
    const out: string[] = ['', `engram tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${counts.skipped ? ' (not a full run):' : ''}`];
    for (const [why, n] of reasons) out.push(`  skipped ${n}: ${why}`);
    for (const b of broken) out.push(`  failed outside its tests (its tests did not run): ${b}`);
    out.push(...(await this.leftovers()));
    process.stdout.write(`${out.join('\n')}\n`);
  }

  /** Stops and removes what the tests left; says what it was, and fails the run if there was any. */
  private async leftovers(): Promise<string[]> {
    // Vitest's workers carry the marker too (the main process's children); a test's process dying now is given time.
    // A process with no marker (a tool gave it an environment of its own) is still found by its folder in the run's.
    const find = (): Found[] => unique([...processesMarked(RUN_VAR, this.runId, { exceptChildrenOf: process.pid }), ...processesUnder(this.runDir, { exceptChildrenOf: process.pid })]);
    await settle(() => find().length === 0, 5000);
    const lines: string[] = [];
    const procs = await killMarked(find).catch((e: unknown) => {
      lines.push(`  ${(e as Error).message}`);
      return find();
    });
    for (const p of procs) lines.push(`  process ${p.pid}: ${p.command}`);
    const entries = (fs.existsSync(this.runDir) ? fs.readdirSync(this.runDir) : []).filter((e) => !TOOL_CACHES.test(e));
    for (const e of entries) {
      const files = fs.statSync(path.join(this.runDir, e), { throwIfNoEntry: false })?.isDirectory() ? listFiles(path.join(this.runDir, e)) : [];
      lines.push(`  temp folder entry ${path.join(this.runDir, e)}${files.length ? ` (${files.slice(0, 5).join(', ')}${files.length > 5 ? `, … ${files.length} files` : ''})` : ''}`);
    }
    await removeFolder(this.runDir).catch((e: unknown) => lines.push(`  could not remove ${this.runDir}: ${(e as Error).message}`));
    if (lines.length === 0) return ['engram tests: nothing left behind (no process of this run alive, its temp folder empty)'];
    process.exitCode = 1;
    return ['engram tests: FAILED: the tests left these behind (now stopped and removed):', ...lines];
  }
}
