// Configuration is read at entry points only (basic-memory's rule): the CLI's and the hook's contexts, the daemon's
// main, the plugin's config access. Everything below them is handed the configuration (a ConfigReader or a value,
// sidecar/hosting/config-file.ts), so no room decides on its own when config.json is read. A read anywhere else fails
// here by file and line; the list only shrinks.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '..', '..');

/** The functions that read config.json (config-file.ts): loadConfig, its parts, and liveConfig (a host's reader). */
const READERS = new Set(['loadConfig', 'liveConfig', 'readConfigData', 'readConfigFile']);

/** Where a read may be, and why. */
const ENTRY_POINTS: Record<string, string> = {
  'sidecar/hosting/config-file.ts': 'the reader itself (and saveConfigKey, which reads the file it edits)',
  'sidecar/cli/entry-context.ts': "every command's context (the CLI's app.ts, `engram hook`, the daemon a hook starts): ctx.configFile, ctx.config",
  'sidecar/host/main.ts': "the daemon's entry: the host is handed a reader, read at each use",
  'src/plugin/node/config-access.ts': "the plugin's entry: its settings tab and its host read through pluginConfig",
};

function* sources(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** Every call of a reader in src/ and sidecar/, as `file:line name`. */
function readerCalls(): { file: string; where: string }[] {
  const out: { file: string; where: string }[] = [];
  for (const root of ['src', 'sidecar']) {
    for (const abs of sources(path.join(repo, root))) {
      const file = path.relative(repo, abs).split(path.sep).join('/');
      const text = fs.readFileSync(abs, 'utf8');
      const sf = ts.createSourceFile(abs, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node)) {
          const callee = node.expression;
          const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
          if (name && READERS.has(name)) out.push({ file, where: `${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1} ${name}` });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return out;
}

describe('configuration is read at entry points only', () => {
  const calls = readerCalls();

  it('no file outside the entry points reads config.json', () => {
    expect(calls.filter((c) => !Object.hasOwn(ENTRY_POINTS, c.file)).map((c) => c.where)).toEqual([]);
  });

  it('each entry point listed still reads it (a list that only shrinks)', () => {
    const reading = new Set(calls.map((c) => c.file));
    expect(Object.keys(ENTRY_POINTS).filter((f) => !reading.has(f))).toEqual([]);
  });

  it('finds a read where there is one (the check sees calls, imported or not)', () => {
    // The reader's own module calls its parts: were the scan blind, the first test would pass on nothing.
    expect(calls.filter((c) => c.file === 'sidecar/hosting/config-file.ts').length).toBeGreaterThanOrEqual(3);
    expect(calls.some((c) => c.file === 'sidecar/host/main.ts')).toBe(true);
  });
});
