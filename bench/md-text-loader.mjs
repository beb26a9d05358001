// A Node module hook for the benchmarks (run under tsx): `.md` files import as their text, as esbuild's
// `loader: { '.md': 'text' }` and the vitest transform do.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function load(url, context, nextLoad) {
  if (url.endsWith('.md')) {
    return { format: 'module', shortCircuit: true, source: `export default ${JSON.stringify(fs.readFileSync(fileURLToPath(url), 'utf8'))};` };
  }
  return nextLoad(url, context);
}
