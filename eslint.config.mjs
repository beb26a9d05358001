// ESLint: the Obsidian community-review rules on src/, typescript-eslint on the rest, and a
// boundary rule that keeps src/core free of 'obsidian' and Node built-ins (it gets them through ports).
import { defineConfig } from 'eslint/config';
import obsidianmd from 'eslint-plugin-obsidianmd';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import path from 'node:path';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Which room a repository file belongs to: the longest prefix in ROOMS that holds it.
const ROOMS = {
  'src/core': ['src/core'],
  // main.ts loads plugin/node on demand, once the layout is ready.
  'src/plugin': ['src/core', 'src/plugin', 'src/plugin/node'],
  'src/plugin/node': ['src/core', 'src/plugin', 'sidecar/hosting'],
  // tools/dev/package.json: the embedding runtime's pinned version.
  'sidecar/hosting': ['src/core', 'sidecar/hosting', 'tools/dev/package.json'],
  'sidecar/host': ['src/core', 'sidecar/hosting', 'sidecar/host'],
  'sidecar/client': ['src/core', 'sidecar/hosting', 'sidecar/client'],
  'sidecar/install': ['src/core', 'sidecar/hosting', 'sidecar/install'],
  'sidecar/mcp': ['src/core', 'sidecar/hosting', 'sidecar/client', 'sidecar/mcp'],
  'sidecar/doctor': ['src/core', 'sidecar/hosting', 'sidecar/client', 'sidecar/install', 'sidecar/doctor'],
  'sidecar/cli': ['src/core', 'sidecar/hosting', 'sidecar/host', 'sidecar/client', 'sidecar/install', 'sidecar/mcp', 'sidecar/doctor', 'sidecar/cli', 'package.json'],
  'package.json': [],
  'tools/dev/package.json': [],
};
const roomOf = (rel) => Object.keys(ROOMS).filter((r) => rel === r || rel.startsWith(`${r}/`)).sort((a, b) => b.length - a.length)[0];

/** `default: disallow`: a relative import must land in a room the importing file's room lists. */
const roomRule = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = path.relative(import.meta.dirname, context.filename).split(path.sep).join('/');
    const room = roomOf(from);
    const check = (node, spec) => {
      if (room === undefined) {
        context.report({ node, message: `${from} is in no room: list its folder in eslint.config.mjs's ROOMS (docs/ARCHITECTURE.md)` });
        return;
      }
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(import.meta.dirname, path.resolve(path.dirname(context.filename), spec)).split(path.sep).join('/');
      const to = roomOf(target);
      if (to === room || (to !== undefined && ROOMS[room].includes(to))) return;
      context.report({ node, message: `${room} may import only ${ROOMS[room].join(', ')}; not ${to ?? target} (docs/ARCHITECTURE.md)` });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

export default defineConfig([
  { ignores: ['node_modules/**', 'dist/**', 'main.js', '.tmp/**', 'coverage/**'] },
  // Retarget only the parts meant for TypeScript: the JS-parser and package.json (JSON language) parts would otherwise
  // be applied to .ts files and fail with "Parsing error: Unexpected character".
  ...obsidianmd.configs.recommended
    .filter((c) => !c.files || JSON.stringify(c.files).includes('ts'))
    .map((c) => ({ ...c, files: ['src/**/*.ts'] })),
  // typescript-eslint's type-checked rules on what Obsidian loads and the engine, none turned off.
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: ['src/**/*.ts'] })),
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
    // The core runs in the daemon (plain Node: there is no window) as well as in Obsidian: its timers are the runtime's
    // own, and it never draws into a popout window.
    files: ['src/core/**/*.ts'],
    rules: { 'obsidianmd/prefer-window-timers': 'off' },
  },
  {
    // The HTTP backend is core: it cannot import `obsidian` for `requestUrl`, so it takes a `fetch` from its caller
    // (FetchLike) and falls back to the runtime's own.
    files: ['src/core/extract/backends/http.ts'],
    rules: { 'no-restricted-globals': 'off' },
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
  // The rooms (docs/ARCHITECTURE.md) as an allowlist: each room lists the rooms it may import, and anything else,
  // a room added later included, is refused. The Node host room (sidecar/hosting) is what the daemon and the plugin
  // both run; cli/, client/, mcp/, install/ and doctor/ sit above it; nothing imports cli/.
  {
    files: ['src/**/*.ts', 'sidecar/**/*.ts'],
    plugins: { rooms: { rules: { allowed: roomRule } } },
    rules: { 'rooms/allowed': 'error' },
  },
  {
    files: ['sidecar/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
]);
