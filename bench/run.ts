// `npm run bench`: runs every bench/*.bench.ts in turn; each prints its own figures.
// Pass names to run a subset: `npm run bench -- index transcript`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
console.log(`engram bench on ${process.platform} ${process.arch}, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
for (const f of files) {
  console.log(`\n== ${f.replace('.bench.ts', '')} ==`);
  const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { run: () => Promise<void> };
  try {
    await mod.run();
  } catch (e) {
    console.log(`  failed: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
