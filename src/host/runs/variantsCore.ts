// The run core the VariantsService calls (core/variants/ runVariants), handed over in one place so
// that activate.ts and the tests name the same thing.
import type { VariantsCore } from './piVariantsService.js';

export const variantsCore: VariantsCore = {
  runVariants() {
    throw new Error('This build of pi-tree has no variants runner yet (runVariants): update pi-tree.');
  },
};
