// Node built-ins that cost memory and start-up time to load (node:crypto about 3 MB, node:net about
// 2 MB), loaded when first used: the commands that only read a session (context, stats, tree) never
// need them. (A require: for the CommonJS bundles, the extension and the CLI; pi-bridge.js is an ES
// module and does not import this.)
/* eslint-disable @typescript-eslint/no-require-imports -- a require in a function is what loads lazily */
import type * as Crypto from 'node:crypto';
import type * as Net from 'node:net';

let crypto: typeof Crypto | undefined;
let net: typeof Net | undefined;

export const nodeCrypto = (): typeof Crypto => (crypto ??= require('node:crypto') as typeof Crypto);
export const nodeNet = (): typeof Net => (net ??= require('node:net') as typeof Net);
