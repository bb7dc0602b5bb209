// Modules that cost memory and start-up time to load (node:crypto about 3 MB, node:net about 2 MB;
// uuid loads node:crypto, and nanoid Node's Web Crypto when it first makes an id), loaded when first
// used: the commands that only read a session (context, stats, tree) never need them. (A require: for
// the CommonJS bundles, the extension and the CLI; pi-bridge.js is an ES module and does not import this.)
/* eslint-disable @typescript-eslint/no-require-imports -- a require in a function is what loads lazily */
import type * as Crypto from 'node:crypto';
import type * as Net from 'node:net';
import type * as Nanoid from 'nanoid';
import type * as Uuid from 'uuid';

let crypto: typeof Crypto | undefined;
let net: typeof Net | undefined;
let uuid: typeof Uuid | undefined;
let nanoid: typeof Nanoid | undefined;

export const nodeCrypto = (): typeof Crypto => (crypto ??= require('node:crypto') as typeof Crypto);
export const nodeNet = (): typeof Net => (net ??= require('node:net') as typeof Net);
export const uuidLib = (): typeof Uuid => (uuid ??= require('uuid') as typeof Uuid);
/** nanoid, an ES module: the bundles carry it; from the sources (tests), Node's require() of ES modules loads it. */
export const nanoidLib = (): typeof Nanoid => (nanoid ??= require('nanoid') as typeof Nanoid);
