// What summaries need from a model: one non-tool completion of a system prompt plus one user prompt.
// Implementations: src/core/models/openaiCompatible.ts (HTTP) and src/host/models/vscodeLm.ts (vscode.lm).
import type { Usage } from '../format/types.js';

export interface SummaryRequest {
  system: string;
  prompt: string;
  /** Output token cap; omitted = the endpoint's default. */
  maxTokens?: number;
  signal?: AbortSignal;
  /** Called as text streams in, with the number of characters received so far. */
  onProgress?(chars: number): void;
  /** Called when a failed attempt will be retried, before waiting `waitMs` (for progress messages). */
  onRetry?(waitMs: number, attempt: number, reason: string): void;
}

export interface SummaryResponse {
  text: string;
  usage?: Usage;
  /** pi's stop reasons: "stop" | "length" | "toolUse" | "error" | "aborted". */
  stopReason?: string;
}

export interface SummaryModel {
  /** Shown to the user and used in messages ("ollama/qwen3:8b", "copilot/gpt-4o"). */
  id: string;
  /** Tokens the model accepts; the branch-summary budget is this minus reserveTokens (pi: 0 ⇒ 128000). */
  contextWindow: number;
  /** Output cap sent with every summary request, like pi's model.maxTokens. */
  maxOutputTokens?: number;
  complete(req: SummaryRequest): Promise<SummaryResponse>;
}

export type SummaryErrorCode =
  | 'connection'
  | 'not-found'
  | 'model-not-found'
  | 'auth'
  | 'rate-limit'
  | 'server'
  | 'timeout'
  | 'malformed'
  | 'bad-request'
  | 'aborted'
  | 'incomplete'
  | 'no-model'
  | 'consent'
  | 'redirect';

/** A model failure whose message says what to fix. */
export class SummaryModelError extends Error {
  override name = 'SummaryModelError';
  constructor(
    readonly code: SummaryErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Cancellation by the user (AbortSignal); callers treat it as "nothing happened". */
export class SummaryAbortedError extends SummaryModelError {
  override name = 'AbortError';
  constructor(message = 'Summary cancelled') {
    super('aborted', message);
  }
}
