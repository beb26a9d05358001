// The oldest Claude Code whose hooks format Engram's registrations use: exec-form hooks (`command` + `args`, in the
// plugin's hooks/hooks.json; older versions drop them silently), the plugin loading hooks/hooks.json on its own, and
// hook context arriving as additionalContext. 2.1.197 is the oldest version verified with the real CLI (docs/ARCHITECTURE.md "What the agents do",
// tests/real/plugin.test.ts); the manifest cannot say it (`engines` fails 2.1.197's `plugin validate --strict`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const MIN_CLAUDE_CODE = '2.1.197';

export function versionAtLeast(v: string, min: string): boolean {
  const a = v.split('.').map((n) => parseInt(n, 10) || 0);
  const b = min.split('.').map((n) => parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    for (const ext of exts) {
      const f = path.join(dir, name + ext);
      if (dir && fs.existsSync(f)) return f;
    }
  }
  return undefined;
}

/** `claude --version` ("2.1.330 (Claude Code)") of the claude on PATH; undefined when there is none. */
export function claudeCodeVersion(env: NodeJS.ProcessEnv): { bin: string; version?: string } | undefined {
  const bin = onPath('claude', env);
  if (!bin) return undefined;
  const r = spawnSync(bin, ['--version'], { env: { ...env, DISABLE_AUTOUPDATER: '1' }, encoding: 'utf8', timeout: 10_000 });
  return { bin, version: /(\d+\.\d+\.\d+)/.exec(String(r.stdout ?? ''))?.[1] };
}
