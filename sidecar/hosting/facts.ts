// What the Node host tells core about where it runs.
import os from 'node:os';
import type { HostFacts } from '../../src/core/state.js';

export function hostFacts(env: NodeJS.ProcessEnv): HostFacts {
  let userName: string | undefined;
  try {
    userName = os.userInfo().username;
  } catch {
    userName = env.USER ?? env.USERNAME;
  }
  return {
    platform: process.platform,
    // HOME wins over the password database so that tests (and users) can point it elsewhere.
    homeDir: env.HOME || env.USERPROFILE || os.homedir(),
    tmpDir: os.tmpdir(),
    env: { ...env },
    uid: typeof process.getuid === 'function' ? process.getuid() : undefined,
    userName,
  };
}
