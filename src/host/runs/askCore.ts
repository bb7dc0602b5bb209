// THE MERGE POINT of "Ask from here": the run core's functions handed to the host's AskService
// (piAskService.ts). This branch (`askui`) was written before core/runs/ existed here, so it hands over
// none and the editor says so when asked. With the `ask` branch merged, this file becomes:
//
//   import { askFrom } from '../../core/runs/askFrom.js';
//   import { listModels } from '../../core/runs/listModels.js';
//   import type { AskCore } from './piAskService.js';
//   export const askCore: AskCore | undefined = { askFrom, listModels };
//
// (the compiler then checks the core's signatures against AskCore).
import type { AskCore } from './piAskService.js';

export const askCore: AskCore | undefined = undefined;
