// Branch summaries and compaction (pi 1.6.0 semantics) for the host, the CLI and tests.
export * from './model.js';
export * from './tokens.js';
export * from './serialize.js';
export * from './fileOps.js';
export * from './systemMessage.js';
export * from './prompts.js';
export * from './branch.js';
export * from './cutPoint.js';
export * from './compaction.js';
