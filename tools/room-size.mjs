// Small rooms (docs/ARCHITECTURE.md): no file over 400 lines and no function over 80 in src/ and sidecar/.
// `node tools/room-size.mjs` prints what is over and exits 1; tests/core/room-size.test.ts runs the same check.
// A function's lines run from its first line to its last, comments inside included (as ESLint's max-lines-per-function).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

function* sourceFiles(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** A function's name as a reader finds it: its own, or the variable, property or method it is assigned to. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every file and function over its limit under `roots` (relative to `repo`), longest first. */
export function oversized(repo, roots = ['src', 'sidecar']) {
  const files = [];
  const functions = [];
  for (const root of roots) {
    for (const file of sourceFiles(path.join(repo, root))) {
      const rel = path.relative(repo, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > MAX_FILE_LINES) files.push({ file: rel, lines });
      const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
          const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (last - first + 1 > MAX_FUNCTION_LINES) functions.push({ file: rel, name: nameOf(node), line: first + 1, lines: last - first + 1 });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return { files: files.sort((a, b) => b.lines - a.lines), functions: functions.sort((a, b) => b.lines - a.lines) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { files, functions } = oversized(path.resolve(import.meta.dirname, '..'));
  for (const f of files) console.log(`${f.file}: ${f.lines} lines (over ${MAX_FILE_LINES})`);
  for (const f of functions) console.log(`${f.file}:${f.line} ${f.name}: ${f.lines} lines (over ${MAX_FUNCTION_LINES})`);
  if (files.length || functions.length) process.exitCode = 1;
  else console.log(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`);
}
