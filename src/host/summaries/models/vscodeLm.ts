// A SummaryModel backed by whatever chat model VS Code offers through vscode.lm (Copilot and other
// providers). VS Code asks the user for consent on the first request, so complete() must only run
// in response to a user action (a command or a click in the tree); the AbortSignal becomes a
// CancellationToken.
import * as vscode from 'vscode';
import {
  SummaryAbortedError,
  SummaryModelError,
  type SummaryModel,
  type SummaryRequest,
  type SummaryResponse,
} from '../../../core/summary/model.js';

export const LM_JUSTIFICATION =
  'pi Session Tree sends the conversation you choose to summarize (a branch you leave, or the history to compact) to this model.';

export class VsCodeLmModel implements SummaryModel {
  readonly id: string;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;

  constructor(
    readonly chat: vscode.LanguageModelChat,
    private readonly access?: vscode.LanguageModelAccessInformation,
  ) {
    this.id = `${chat.vendor}/${chat.family || chat.id}`;
    this.contextWindow = chat.maxInputTokens;
  }

  async complete(req: SummaryRequest): Promise<SummaryResponse> {
    if (req.signal?.aborted) throw new SummaryAbortedError();
    if (this.access?.canSendRequest(this.chat) === false) {
      throw new SummaryModelError(
        'consent',
        `VS Code does not allow pi Session Tree to use ${this.chat.name}. Allow it under "Manage Language Model Access" in the Accounts menu, or pick another model.`,
      );
    }
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // vscode.lm has no system role: the instructions lead the one user message.
      const messages = [vscode.LanguageModelChatMessage.User(`${req.system}\n\n${req.prompt}`)];
      const res = await this.chat.sendRequest(messages, { justification: LM_JUSTIFICATION }, cts.token);
      let text = '';
      for await (const chunk of res.text) {
        text += chunk;
        req.onProgress?.(text.length);
      }
      if (req.signal?.aborted) throw new SummaryAbortedError();
      // vscode.lm reports no token usage.
      return { text, stopReason: 'stop' };
    } catch (e) {
      if (req.signal?.aborted || e instanceof vscode.CancellationError) throw new SummaryAbortedError();
      throw this.mapError(e);
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }

  private mapError(e: unknown): Error {
    if (e instanceof SummaryModelError) return e;
    const name = this.chat.name;
    if (e instanceof vscode.LanguageModelError) {
      const why = e.message ? ` (${e.message})` : '';
      if (e.code === vscode.LanguageModelError.NoPermissions.name) {
        return new SummaryModelError(
          'consent',
          `Permission to use ${name} was not given${why}. Run the summary again and allow it when VS Code asks.`,
        );
      }
      if (e.code === vscode.LanguageModelError.Blocked.name)
        return new SummaryModelError(
          'rate-limit',
          `${name} refused the request${why}; its quota may be used up. Try later or pick another model.`,
        );
      if (e.code === vscode.LanguageModelError.NotFound.name)
        return new SummaryModelError('model-not-found', `${name} is no longer available${why}. Pick another model.`);
      return new SummaryModelError('server', `${name} failed: ${e.message || e.code}`);
    }
    return new SummaryModelError('server', `${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
