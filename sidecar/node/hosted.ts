// Which vaults this process hosts, with the host's own vault port: commands run inside the host (for a client that
// found it live) write through that port and never forward to themselves.
import type { VaultPort } from '../../src/core/ports.js';

const hosted = new Map<string, VaultPort>();

export function registerHostedVault(realPath: string, vault: VaultPort): void {
  hosted.set(realPath, vault);
}

export function unregisterHostedVault(realPath: string): void {
  hosted.delete(realPath);
}

/** The host's vault port when this process hosts the vault (by its real path). */
export function hostedVault(realPath: string): VaultPort | undefined {
  return hosted.get(realPath);
}
