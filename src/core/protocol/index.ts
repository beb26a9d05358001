// The messages between hosts and clients: versioned JSON-RPC 2.0, one message per line.
export * from './version.js';
export * from './jsonrpc.js';
export * from './messages.js';
export * from './embed.js';
export { ParamError, type Spec } from './schema.js';
