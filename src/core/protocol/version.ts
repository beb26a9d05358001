// The host/client protocol version. A different major means the two sides cannot talk; a newer minor only adds.

// 1.1: `context` takes SessionStart's `source`; `search` answers a query as `engram search` shows it.
// 1.2: typed curation (`review.plan`, `restructure.plan`, `maintain.run`, `curate.apply`, `forget` with actor and
//      byUser) and `index.update` replace running those CLI commands through `cli`.
// 1.3: `curate.apply` takes `edits` (the user's text for a note a proposal creates).
// 1.4: `curate.reject` remembers rejected proposals.
// 1.5: `recall` takes `folders` and `tags` (the MCP `search` tool).
// 1.6: `context` takes the hook's `agent`; `activity` takes `agent` and `summary` (the Activity pane).
// 1.7: the methods the MCP server calls take the MCP client's `agent` (the activity record's `mcp` entries).
export const PROTOCOL_VERSION = '1.7';

/** True when a host of `hostVersion` knows what minor version `minor` added (same major assumed). */
export function hostSupports(hostVersion: unknown, minor: number): boolean {
  return (parseProtocolVersion(hostVersion)?.minor ?? 0) >= minor;
}

export interface ParsedVersion {
  major: number;
  minor: number;
}

export function parseProtocolVersion(v: unknown): ParsedVersion | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{1,4})\.(\d{1,4})$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

export type VersionVerdict = 'compatible' | 'client-newer' | 'host-newer' | 'invalid';

/** Compares a client's version with the host's: only the major matters for compatibility. */
export function compareProtocol(client: unknown, host: string = PROTOCOL_VERSION): VersionVerdict {
  const c = parseProtocolVersion(client);
  const h = parseProtocolVersion(host);
  if (!c || !h) return 'invalid';
  if (c.major === h.major) return 'compatible';
  return c.major > h.major ? 'client-newer' : 'host-newer';
}

/** What a person should do about a mismatch (the CLI prints it; hooks stay silent). */
export function mismatchAdvice(verdict: VersionVerdict, clientVersion: string, hostVersion: string): string {
  if (verdict === 'client-newer') {
    return `the running Engram host speaks protocol ${hostVersion}, this client ${clientVersion}: update the host ` +
      '(restart it with `engram serve --stop`, or update the Obsidian plugin if Obsidian hosts)';
  }
  if (verdict === 'host-newer') {
    return `the running Engram host speaks protocol ${hostVersion}, this client ${clientVersion}: update this engram CLI ` +
      '(reinstall it, then run `engram install` again)';
  }
  return `invalid protocol version "${clientVersion}"`;
}
