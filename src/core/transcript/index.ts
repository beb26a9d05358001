// Everything the transcript layer offers, for hosts and the extraction engine.
export * from './types.js';
export * from './parse-stats.js';
export * from './fence.js';
export * from './line-splitter.js';
export { parseJsonLine } from './json-records.js';
export type { SourceRecord } from './record-stream.js';
export * from './claude-code.js';
export * from './codex.js';
export * from './chat-export.js';
export * from './json-array.js';
export * from './detect.js';
export * from './noise.js';
export * from './redact.js';
export * from './signals.js';
export * from './windows.js';
export * from './incremental.js';
