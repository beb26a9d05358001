import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const obsidianMock = fileURLToPath(new URL('./node_modules/obsidian-test-mocks/dist/lib/esm/obsidian/index.mjs', import.meta.url));

// Prompt templates are Markdown files imported as text (esbuild does the same with its `.md: text` loader).
const markdownAsText = {
  name: 'engram-markdown-as-text',
  enforce: 'pre' as const,
  transform(code: string, id: string) {
    return id.endsWith('.md') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig({
  plugins: [markdownAsText],
  test: {
    // After Vitest's summary: how many tests skipped and why, and a check that the tests left no process and no temp
    // folder behind (a run that did fails).
    reporters: ['default', './tests/helpers/run-reporter.ts'],
    // After each test file: its sandboxes, temp folders and processes are gone, whatever failed (tests/helpers/leftovers.ts).
    setupFiles: ['tests/helpers/test-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'core', include: ['tests/core/**/*.test.ts'], environment: 'node' } },
      {
        extends: true,
        test: { name: 'plugin', include: ['tests/plugin/**/*.test.ts'], environment: 'node', globalSetup: ['tests/helpers/global-setup.ts'] },
        resolve: { alias: { obsidian: obsidianMock } },
      },
      // The panes in headless Chromium (tests/helpers/view-harness.ts), with the mocks bundled into the page.
      { extends: true, test: { name: 'dom', include: ['tests/dom/**/*.test.ts'], environment: 'node' } },
      // In process: the sidecar's adapters and a second host of the engine (npm test).
      { extends: true, test: { name: 'sidecar', include: ['tests/sidecar/**/*.test.ts'], environment: 'node' } },
      // Real processes: the built CLI, hooks, hosts killed with -9, racing starters, stdio MCP (npm run test:e2e).
      // Real processes on a loaded machine: a generous bound on "it finishes" (no test bounds how fast).
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], environment: 'node', globalSetup: ['tests/helpers/global-setup.ts'], testTimeout: 120_000 } },
      { extends: true, test: { name: 'corpus', include: ['tests/corpus/**/*.test.ts'], environment: 'node' } },
      // The real Claude Code and Codex CLIs against fake model servers (tests/helpers/real-cli.ts).
      // Tests that fail and leak on purpose, run only by tests/e2e/leftovers.test.ts (which sets the variable).
      ...(process.env.ENGRAM_HARNESS_FIXTURES ? [{ extends: true as const, test: { name: 'harness', include: ['tests/fixtures/harness/*.fixture.ts'], environment: 'node' } }] : []),
      {
        extends: true,
        test: { name: 'real', include: ['tests/real/**/*.test.ts'], environment: 'node', globalSetup: ['tests/helpers/global-setup.ts', 'tests/real/global-setup.ts'], testTimeout: 180_000, hookTimeout: 400_000 },
      },
    ],
  },
});
