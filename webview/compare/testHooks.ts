// What the test build exposes on `window.__piTree` in the compare view: the app and the idle signal
// (tests wait for it instead of sleeping). The shipped bundle is built without it.
import { busy, whenIdle } from '../ui/schedule';
import type { CompareApp } from './compareApp';

export interface CompareTestHooks {
  compare: CompareApp;
  idle(): Promise<void>;
  busy(): boolean;
}

export function exposeCompareHooks(app: CompareApp): void {
  const hooks: CompareTestHooks = { compare: app, idle: whenIdle, busy };
  (window as unknown as { __piTree: CompareTestHooks }).__piTree = hooks;
}
