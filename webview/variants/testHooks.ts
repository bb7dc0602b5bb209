// What the test build exposes on `window.__piTree` in the variants view: the app and the idle signal
// (tests wait for it instead of sleeping). The shipped bundle is built without it.
import { busy, whenIdle } from '../ui/schedule';
import type { VariantsApp } from './variantsApp';

export interface VariantsTestHooks {
  variants: VariantsApp;
  idle(): Promise<void>;
  busy(): boolean;
}

export function exposeVariantsHooks(app: VariantsApp): void {
  const hooks: VariantsTestHooks = { variants: app, idle: whenIdle, busy };
  (window as unknown as { __piTree: VariantsTestHooks }).__piTree = hooks;
}
