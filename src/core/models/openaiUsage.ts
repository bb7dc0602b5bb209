// Token usage of an OpenAI-compatible answer as pi records it (pi-ai's parseChunkUsage), priced like
// pi-ai's calculateCost when the model's prices are known (USD per million tokens, as in pi's
// models.json `cost`); without prices the cost is 0, as pi records it for a model it has no prices for.
import type { Usage } from '../format/types.js';

type Obj = Record<string, unknown>;

/** USD per million tokens. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export function mapOpenAIUsage(raw: Obj, prices?: ModelPrices): Usage {
  const details = (raw.prompt_tokens_details ?? undefined) as Obj | undefined;
  const promptTokens = n(raw.prompt_tokens);
  const cacheRead = n(details?.cached_tokens ?? raw.prompt_cache_hit_tokens ?? raw.cached_tokens);
  const cacheWrite = n(details?.cache_write_tokens);
  const input = Math.max(0, promptTokens - cacheRead - cacheWrite);
  const output = n(raw.completion_tokens);
  const completionDetails = raw.completion_tokens_details as Obj | undefined;
  const usage: Usage = {
    input,
    output,
    cacheRead,
    cacheWrite,
    reasoning: n(completionDetails?.reasoning_tokens) || n(raw.reasoning_tokens),
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false },
  };
  if (prices) {
    // pi-ai calculateCost, without tiers and 1h cache writes (OpenAI-compatible APIs report neither).
    const c = usage.cost!;
    c.input = (n(prices.input) / 1_000_000) * input;
    c.output = (n(prices.output) / 1_000_000) * output;
    c.cacheRead = (n(prices.cacheRead) / 1_000_000) * cacheRead;
    c.cacheWrite = (n(prices.cacheWrite) * cacheWrite) / 1_000_000;
    c.total = c.input + c.output + c.cacheRead + c.cacheWrite;
  }
  return usage;
}
