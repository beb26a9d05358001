// What the host room knows of an install, so the plugin and the doctor read it without the installer: the MCP
// server's name, the record of what `engram install` wrote (install.json), and the shim's text and target.
import fs from 'node:fs';
import path from 'node:path';
import { engramHome } from './paths.js';
import { atomicWriteFileSync } from './atomic-write.js';

/** The name Engram's MCP server is registered under (Claude Code, Codex). */
export const MCP_NAME = 'engram';

/** What `engram setup` put into one vault's `.obsidian` (obsidian-plugin.ts), so uninstall takes out exactly that. */
export interface ObsidianPluginRecord {
  /** `<vault>/.obsidian/plugins/engram` */
  dir: string;
  /** Each copied file's SHA-256 as written: a file changed since (a store update) is no longer ours to remove. */
  files: Record<string, string>;
  /** community-plugins.json did not exist before: uninstall removes it again when it is left empty. */
  createdList: boolean;
  /** Folders setup created (deepest last); uninstall removes each that is empty again. */
  createdDirs: string[];
}

export interface InstallRecord {
  format: number;
  files: Record<string, { existed: boolean; original: string | null; backup?: string }>;
  /** By vault path. */
  obsidianPlugins?: Record<string, ObsidianPluginRecord>;
}

function recordFile(env: NodeJS.ProcessEnv): string {
  return path.join(engramHome(env), 'install.json');
}

export function readRecord(env: NodeJS.ProcessEnv): InstallRecord {
  try {
    return JSON.parse(fs.readFileSync(recordFile(env), 'utf8')) as InstallRecord;
  } catch {
    return { format: 1, files: {} };
  }
}

export function writeRecord(env: NodeJS.ProcessEnv, rec: InstallRecord): void {
  fs.mkdirSync(engramHome(env), { recursive: true, mode: 0o700 });
  atomicWriteFileSync(recordFile(env), `${JSON.stringify(rec, null, 2)}\n`, { mode: 0o600 });
}

/** One shell word, single-quoted (for the shim, and for commands printed for the user to paste). */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The text of the shim: runs the CLI with the Node that installed it; a hook never fails, even when both are gone. */
export function shimText(node: string, entry: string, logs: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    return [
      '@echo off',
      'rem Written by `engram install`: runs the engram CLI with the Node that installed it.',
      `if not exist "${entry}" (`,
      '  if "%~1"=="hook" exit /b 0',
      `  echo engram: ${entry} is missing; run engram install again from where Engram now lives 1>&2`,
      '  exit /b 1',
      ')',
      `if "%~1"=="hook" ( "${node}" "${entry}" %* 2>>"${path.win32.join(logs, 'hook.log')}" & exit /b 0 )`,
      `"${node}" "${entry}" %*`,
      '',
    ].join('\r\n');
  }
  return [
    '#!/bin/sh',
    '# Written by `engram install`: runs the engram CLI with the Node that installed it. A hook always exits 0:',
    '# when the install is gone it logs why; while it runs, its errors go to the log, never to Claude Code.',
    `node=${shq(node)}`,
    `entry=${shq(entry)}`,
    `logs=${shq(logs)}`,
    'log="$logs/hook.log"',
    'if [ "$1" = hook ] && [ ! -d "$logs" ]; then mkdir -p "$logs" 2>/dev/null; fi',
    'if [ ! -x "$node" ] || [ ! -f "$entry" ]; then',
    '  if [ "$1" = hook ]; then',
    '    printf \'%s hook %s: skipped, %s or %s is missing (moved or rebuilt?); run `engram install` again from where Engram lives\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" "$entry" "$node" >>"$log" 2>/dev/null',
    '    exit 0',
    '  fi',
    '  echo "engram: $entry (or $node) is missing: the install moved or was removed; run \\`node <checkout>/dist/engram.mjs install\\` from where Engram now lives" >&2',
    '  exit 1',
    'fi',
    'if [ "$1" = hook ]; then',
    '  # Errors to the log; when the log cannot be opened (a read-only $ENGRAM_HOME), the hook still runs and says so.',
    '  if { : >>"$log"; } 2>/dev/null; then "$node" "$entry" "$@" 2>>"$log"; else "$node" "$entry" "$@"; fi',
    '  exit 0',
    'fi',
    'exec "$node" "$entry" "$@"',
    '',
  ].join('\n');
}

/** The CLI file a shim runs (undefined when the text is not a shim Engram wrote). */
export function shimTarget(text: string): string | undefined {
  const posix = /^entry='((?:[^']|'\\'')*)'$/m.exec(text);
  if (posix) return posix[1].replace(/'\\''/g, "'");
  return /if not exist "([^"]+)"/.exec(text)?.[1] ?? /exec "[^"]+" "([^"]+)"/.exec(text)?.[1];
}

/** The files that still hold registrations `engram install` wrote (and `uninstall` has not taken out). */
export function remainingRegistrations(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(readRecord(env).files).filter((f) => fs.existsSync(f));
}

/** When `engram install --agent codex` registered Engram with Codex: the host follows Codex's rollouts from then on. */
function codexRecordFile(env: NodeJS.ProcessEnv): string {
  return path.join(engramHome(env), 'codex-registered.json');
}

export function recordCodexRegistered(env: NodeJS.ProcessEnv, at = new Date()): void {
  fs.mkdirSync(engramHome(env), { recursive: true, mode: 0o700 });
  atomicWriteFileSync(codexRecordFile(env), `${JSON.stringify({ format: 1, since: at.toISOString() })}\n`, { mode: 0o600 });
}

/** Epoch ms of the registration `engram install --agent codex` recorded, if any. */
export function codexRegisteredAt(env: NodeJS.ProcessEnv): number | undefined {
  try {
    const t = Date.parse((JSON.parse(fs.readFileSync(codexRecordFile(env), 'utf8')) as { since?: string }).since ?? '');
    return Number.isFinite(t) ? t : undefined;
  } catch {
    return undefined;
  }
}
