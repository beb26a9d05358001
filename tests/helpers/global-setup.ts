// Builds the CLI bundle once before the sidecar tests, which run it as a real process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, stdio: 'inherit' });
}
