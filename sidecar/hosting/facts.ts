// What the Node host tells core about where it runs.
import os from 'node:os';
import type { HostFacts } from '../../src/core/state.js';

/** The user's home folder, the one rule: HOME (USERPROFILE on Windows) wins over the password database, so tests and users can point it elsewhere. */
export function homeDir(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

export function hostFacts(env: NodeJS.ProcessEnv): HostFacts {
  let userName: string | undefined;
  try {
    userName = os.userInfo().username;
  } catch {
    userName = env.USER ?? env.USERNAME;
  }
  return {
    platform: process.platform,
    homeDir: homeDir(env),
    tmpDir: os.tmpdir(),
    env: { ...env },
    uid: typeof process.getuid === 'function' ? process.getuid() : undefined,
    userName,
  };
}
