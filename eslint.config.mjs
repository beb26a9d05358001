// ESLint: the Obsidian community-review rules on src/, typescript-eslint on the rest, and a
// boundary rule that keeps src/core free of 'obsidian' and Node built-ins (it gets them through ports).
import { defineConfig } from 'eslint/config';
import obsidianmd from 'eslint-plugin-obsidianmd';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default defineConfig([
  { ignores: ['node_modules/**', 'dist/**', 'main.js', '.tmp/**', 'coverage/**'] },
  // Retarget only the parts meant for TypeScript: the JS-parser and package.json (JSON language) parts would otherwise
  // be applied to .ts files and fail with "Parsing error: Unexpected character".
  ...obsidianmd.configs.recommended
    .filter((c) => !c.files || JSON.stringify(c.files).includes('ts'))
    .map((c) => ({ ...c, files: ['src/**/*.ts'] })),
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // The engine's log and CLI-facing text is not Obsidian UI text.
      'obsidianmd/ui/sentence-case': 'off',
    },
  },
  {
    // Only src/plugin/node/ (loaded on demand, desktop only) may reach Node and the sidecar's Node code.
    files: ['src/plugin/**/*.ts'],
    ignores: ['src/plugin/node/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node is reached only from src/plugin/node/ (loaded after the layout is ready).' })),
          patterns: [{ group: ['../../sidecar/*', '../../../sidecar/*'], message: 'The sidecar is reached only from src/plugin/node/.' }],
        },
      ],
    },
  },
  {
    // The plugin's Node side runs in Obsidian's main window and in plain Node (the handover tests): its timers are
    // process timers, not a popout window's.
    files: ['src/plugin/node/**/*.ts'],
    rules: { 'obsidianmd/prefer-window-timers': 'off', 'obsidianmd/no-global-this': 'off' },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'obsidian', message: 'src/core must not import obsidian: take it through a port.' },
            ...nodeBuiltins.map((name) => ({ name, message: 'src/core must not import Node built-ins: take them through ports.ts.' })),
          ],
        },
      ],
    },
  },
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: ['sidecar/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'] })),
  // The sidecar's rooms (docs/ARCHITECTURE.md): node/ (Node adapters, resolution, settings) imports no other room;
  // client/ only node/; hosting/ (what any Node-side host runs: the daemon and the plugin) never host/, the CLI, MCP or doctor;
  // host/ (the daemon) never the CLI, MCP or doctor; no room imports cli/.
  ...Object.entries({
    node: ['cli', 'client', 'hosting', 'host', 'mcp', 'install', 'doctor'],
    client: ['cli', 'hosting', 'host', 'mcp', 'install', 'doctor'],
    hosting: ['cli', 'host', 'mcp', 'doctor'],
    host: ['cli', 'mcp', 'doctor'],
    mcp: ['cli', 'hosting', 'host', 'install', 'doctor'],
    install: ['cli', 'hosting', 'host', 'mcp', 'doctor'],
    doctor: ['cli', 'mcp'],
  }).map(([room, banned]) => ({
    files: [`sidecar/${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: banned.map((b) => ({ group: [`../${b}/*`, `../../${b}/*`], message: `sidecar/${room} may not import sidecar/${b} (docs/ARCHITECTURE.md)` })) }],
    },
  })),
  {
    files: ['sidecar/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
]);
