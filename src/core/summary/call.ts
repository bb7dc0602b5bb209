// One summarization request, with pi's rules for what counts as a usable answer: an aborted call is a
// cancellation, an error or a length stop (truncated text) is a failure, and a tool call is refused.
import type { Usage } from '../format/types.js';
import { SummaryAbortedError, SummaryModelError, type SummaryModel } from './model.js';
import { SUMMARY_SYSTEM_PROMPT } from './prompts.js';

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?(chars: number): void;
}

export interface SentRequest {
  system: string;
  prompt: string;
  maxTokens?: number;
}

export async function callSummaryModel(
  model: SummaryModel,
  prompt: string,
  label: string,
  opts: CallOptions,
): Promise<{ text: string; usage?: Usage; request: SentRequest }> {
  if (opts.signal?.aborted) throw new SummaryAbortedError();
  const request: SentRequest = { system: SUMMARY_SYSTEM_PROMPT, prompt, maxTokens: model.maxOutputTokens };
  const res = await model.complete({ ...request, signal: opts.signal, onProgress: opts.onProgress });
  if (res.stopReason === 'aborted' || opts.signal?.aborted) throw new SummaryAbortedError();
  if (res.stopReason === 'error') throw new SummaryModelError('server', `${label} failed: the model reported an error`);
  if (res.stopReason === 'length') {
    throw new SummaryModelError(
      'incomplete',
      `${label} failed: generation hit the token cap and the summary is incomplete (raise the model's output limit)`,
    );
  }
  if (res.stopReason === 'toolUse') throw new SummaryModelError('malformed', `${label} attempted to call a tool`);
  return { text: res.text, usage: res.usage, request };
}

/** pi's combineUsage (usage-totals.js): the sum of two calls' usage. */
export function combineUsage(a: Usage, b: Usage): Usage {
  const ca = a.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  const cb = b.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    ...(a.cacheWrite1h !== undefined || b.cacheWrite1h !== undefined
      ? { cacheWrite1h: ((a.cacheWrite1h as number | undefined) ?? 0) + ((b.cacheWrite1h as number | undefined) ?? 0) }
      : {}),
    ...(a.reasoning !== undefined || b.reasoning !== undefined
      ? { reasoning: ((a.reasoning as number | undefined) ?? 0) + ((b.reasoning as number | undefined) ?? 0) }
      : {}),
    totalTokens: (a.totalTokens ?? 0) + (b.totalTokens ?? 0),
    cost: {
      input: ca.input + cb.input,
      output: ca.output + cb.output,
      cacheRead: ca.cacheRead + cb.cacheRead,
      cacheWrite: ca.cacheWrite + cb.cacheWrite,
      total: ca.total + cb.total,
      totalFromProvider: ca.totalFromProvider === true && cb.totalFromProvider === true,
    },
  };
}
