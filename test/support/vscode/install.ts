// Import first in a test of host code: `import '../support/vscode/install.js'` makes `import * as vscode
// from 'vscode'` load test/support/vscode/api.ts. A member the mock lacks throws with its name.
import Module from 'node:module';
import { join } from 'node:path';

const api = join(__dirname, 'api.ts');
const M = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = M._resolveFilename;
M._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? api : resolve.call(this, request, ...rest);
};

// The bundler's namespace object inherits from the module's exports: a miss ends up here.
const missing = new Proxy(Object.prototype, {
  get(target, key, receiver) {
    if (typeof key === 'symbol' || key in target || key === 'then' || key === 'default' || key === '__esModule')
      return Reflect.get(target, key, receiver);
    throw new Error(`the vscode mock (test/support/vscode/api.ts) has no '${String(key)}'`);
  },
});
Object.setPrototypeOf(require(api), missing);
