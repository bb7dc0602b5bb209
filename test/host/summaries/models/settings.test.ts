// The summary settings as the host reads them, and the contributes snippet that declares them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  apiKeySecretName,
  CLEAR_API_KEY_COMMAND,
  matchesLmSetting,
  pricesOf,
  readSummarySettings,
  SELECT_LM_MODEL_COMMAND,
  SET_API_KEY_COMMAND,
  SUMMARY_DEFAULTS,
} from '../../../../src/host/summaries/models/settings.js';

const cfg = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

test('defaults, and bad values fall back or are clamped', () => {
  assert.deepEqual(readSummarySettings(cfg({})), SUMMARY_DEFAULTS);
  const s = readSummarySettings(
    cfg({
      provider: 'openai-compatible',
      endpoint: '  http://h:1/v1 ',
      model: ' qwen3:8b ',
      reserveTokens: -5,
      keepRecentTokens: 1234.7,
      timeoutSeconds: 99999,
      contextWindow: 'big',
    }),
  );
  assert.equal(s.provider, 'openai-compatible');
  assert.equal(s.endpoint, 'http://h:1/v1');
  assert.equal(s.model, 'qwen3:8b');
  assert.equal(s.reserveTokens, 0);
  assert.equal(s.keepRecentTokens, 1234);
  assert.equal(s.timeoutSeconds, 3600);
  assert.equal(s.contextWindow, 0);
  assert.equal(readSummarySettings(cfg({ provider: 'something-else' })).provider, 'auto');
  assert.equal(readSummarySettings(cfg({ provider: 'pi' })).provider, 'pi');
  assert.equal(readSummarySettings(cfg({ provider: 'vscode-lm' })).provider, 'vscode-lm');
  assert.equal(readSummarySettings(cfg({ endpoint: '' })).endpoint, SUMMARY_DEFAULTS.endpoint);
});

test('prices: unknown (0) unless set; negative or bad values count as unknown', () => {
  assert.equal(pricesOf(readSummarySettings(cfg({}))), undefined);
  assert.deepEqual(
    pricesOf(readSummarySettings(cfg({ priceInput: 3, priceOutput: 15, priceCacheRead: -1, priceCacheWrite: 'x' }))),
    { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 },
  );
});

test('API keys are bound to the endpoint origin', () => {
  assert.equal(apiKeySecretName('https://api.openai.com/v1'), 'piTree.summary.apiKey:https://api.openai.com');
  assert.equal(apiKeySecretName('https://api.openai.com/v1/'), apiKeySecretName('https://api.openai.com'));
  assert.notEqual(apiKeySecretName('http://127.0.0.1:11434/v1'), apiKeySecretName('http://127.0.0.1:1234/v1'));
  assert.notEqual(apiKeySecretName('http://evil.example/v1'), apiKeySecretName('https://api.openai.com/v1'));
});

test('vscode.lm model setting matches id, family or vendor/family', () => {
  const m = { id: 'copilot-gpt-4o', family: 'gpt-4o', vendor: 'copilot' };
  for (const s of ['copilot-gpt-4o', 'gpt-4o', 'copilot/gpt-4o', 'copilot/copilot-gpt-4o'])
    assert.ok(matchesLmSetting(m, s), s);
  for (const s of ['', 'gpt-4', 'other/gpt-4o']) assert.ok(!matchesLmSetting(m, s), s);
});

test('package.json declares every summary setting with the same default, and the commands', () => {
  const c = JSON.parse(readFileSync('package.json', 'utf8')).contributes;
  const props = c.configuration.properties;
  assert.deepEqual(
    Object.keys(props)
      .filter((k) => k.startsWith('piTree.summary.'))
      .sort(),
    Object.keys(SUMMARY_DEFAULTS)
      .map((k) => `piTree.summary.${k}`)
      .sort(),
  );
  for (const [k, v] of Object.entries(SUMMARY_DEFAULTS)) assert.equal(props[`piTree.summary.${k}`].default, v, k);
  assert.deepEqual(props['piTree.summary.provider'].enum, ['auto', 'pi', 'vscode-lm', 'openai-compatible']);
  // A workspace must not redirect conversations to another server.
  for (const k of ['provider', 'endpoint', 'model', 'vscodeLmModel'])
    assert.equal(props[`piTree.summary.${k}`].scope, 'machine', k);
  const commands = c.commands.map((x: { command: string }) => x.command);
  for (const k of [CLEAR_API_KEY_COMMAND, SELECT_LM_MODEL_COMMAND, SET_API_KEY_COMMAND])
    assert.ok(commands.includes(k), k);
});
