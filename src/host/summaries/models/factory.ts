// Builds the SummaryModel the settings ask for, and registers the commands that set or clear the
// endpoint's API key (kept in SecretStorage, bound to the endpoint's origin).
import * as vscode from 'vscode';
import { OpenAICompatibleModel } from '../../../core/models/openaiCompatible.js';
import { SummaryAbortedError, SummaryModelError, type SummaryModel } from '../../../core/summary/model.js';
import {
  apiKeySecretName,
  CLEAR_API_KEY_COMMAND,
  endpointOrigin,
  matchesLmSetting,
  pricesOf,
  readSummarySettings,
  SELECT_LM_MODEL_COMMAND,
  SET_API_KEY_COMMAND,
  type SummarySettings,
} from './settings.js';
import { VsCodeLmModel } from './vscodeLm.js';

export function summarySettings(): SummarySettings {
  return readSummarySettings(vscode.workspace.getConfiguration('piTree.summary'));
}

/** The vscode.lm model picked this session when the setting is empty (not persisted). */
let pickedLmModelId: string | undefined;

async function chooseLmModel(setting: string, interactive: boolean): Promise<vscode.LanguageModelChat> {
  const all = await vscode.lm.selectChatModels();
  if (!all.length) {
    throw new SummaryModelError(
      'no-model',
      'VS Code offers no chat models. Install and sign in to a chat model provider (e.g. GitHub Copilot), or set "piTree.summary.provider" to "openai-compatible".',
    );
  }
  if (setting) {
    const m = all.find((c) => matchesLmSetting(c, setting));
    if (!m) {
      throw new SummaryModelError(
        'model-not-found',
        `No VS Code chat model matches "piTree.summary.vscodeLmModel" = "${setting}". Available: ${all.map((c) => c.id).join(', ')}.`,
      );
    }
    return m;
  }
  const remembered = pickedLmModelId && all.find((c) => c.id === pickedLmModelId);
  if (remembered) return remembered;
  if (all.length === 1) return all[0];
  if (!interactive)
    throw new SummaryModelError('no-model', 'Choose a chat model for summaries ("piTree.summary.vscodeLmModel").');
  const pick = await vscode.window.showQuickPick(
    all.map((c) => ({
      label: c.name,
      description: `${c.vendor} · ${c.family}`,
      detail: `${c.maxInputTokens.toLocaleString()} input tokens`,
      chat: c,
    })),
    {
      title: 'Model for pi summaries',
      placeHolder: 'Pick the chat model that writes branch summaries and compactions',
    },
  );
  if (!pick) throw new SummaryAbortedError('No model chosen');
  pickedLmModelId = pick.chat.id;
  return pick.chat;
}

/**
 * The model for the current settings. `interactive` allows a QuickPick when the vscode.lm model is
 * not configured. Call it from a user action: a vscode.lm request may ask for consent.
 */
export async function createSummaryModel(
  context: vscode.ExtensionContext,
  opts: { interactive: boolean; settings?: SummarySettings },
): Promise<SummaryModel> {
  const s = opts.settings ?? summarySettings();
  if (s.provider !== 'openai-compatible') {
    return new VsCodeLmModel(
      await chooseLmModel(s.vscodeLmModel, opts.interactive),
      context.languageModelAccessInformation,
    );
  }
  if (!s.model)
    throw new SummaryModelError(
      'model-not-found',
      'Set "piTree.summary.model" to the model the endpoint should use (e.g. "llama3.2").',
    );
  const apiKey = await context.secrets.get(apiKeySecretName(s.endpoint));
  return new OpenAICompatibleModel({
    baseUrl: s.endpoint,
    model: s.model,
    apiKey: apiKey || undefined,
    contextWindow: s.contextWindow,
    maxOutputTokens: s.maxOutputTokens || undefined,
    timeoutMs: s.timeoutSeconds * 1000,
    prices: pricesOf(s),
  });
}

export function registerSummaryModelCommands(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(SET_API_KEY_COMMAND, async () => {
      const { endpoint } = summarySettings();
      const name = apiKeySecretName(endpoint);
      const key = await vscode.window.showInputBox({
        title: `API key for ${endpointOrigin(endpoint)}`,
        prompt: "Stored in VS Code's secret storage and only sent to this endpoint.",
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Enter a key, or press Escape to cancel'),
      });
      if (key === undefined) return;
      await context.secrets.store(name, key.trim());
      void vscode.window.showInformationMessage(`API key saved for ${endpointOrigin(endpoint)}.`);
    }),
    vscode.commands.registerCommand(CLEAR_API_KEY_COMMAND, async () => {
      const { endpoint } = summarySettings();
      await context.secrets.delete(apiKeySecretName(endpoint));
      void vscode.window.showInformationMessage(`API key cleared for ${endpointOrigin(endpoint)}.`);
    }),
    vscode.commands.registerCommand(SELECT_LM_MODEL_COMMAND, async () => {
      pickedLmModelId = undefined;
      const m = await chooseLmModel('', true);
      const target = vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('piTree.summary').update('vscodeLmModel', m.id, target);
    }),
  );
}
