// The run core the VariantsService calls (core/variants/ runVariants), handed over in one place so
// that activate.ts and the tests name the same thing.
import { runVariants } from '../../core/variants/index.js';
import type { VariantsCore } from './piVariantsService.js';

export const variantsCore: VariantsCore = { runVariants };
