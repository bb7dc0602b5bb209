// The `piTree.summary.*` settings, read and checked without touching vscode (so the rules are testable
// in plain Node). The keys and defaults match src/host/models/contributes.json.

export const SET_API_KEY_COMMAND = 'piTree.summary.setApiKey';
export const CLEAR_API_KEY_COMMAND = 'piTree.summary.clearApiKey';
export const SELECT_LM_MODEL_COMMAND = 'piTree.summary.selectModel';

/** `auto`: pi when it is installed, else vscode-lm (resolved when a summary is asked for). */
export type SummaryProvider = 'auto' | 'pi' | 'vscode-lm' | 'openai-compatible';

export interface SummarySettings {
  provider: SummaryProvider;
  /** vscode.lm model id or family ("" = ask with a QuickPick). */
  vscodeLmModel: string;
  endpoint: string;
  model: string;
  /** 0 = pi's default of 128000 (openai-compatible only; vscode.lm models report their own). */
  contextWindow: number;
  /** 0 = let the endpoint decide. */
  maxOutputTokens: number;
  reserveTokens: number;
  keepRecentTokens: number;
  timeoutSeconds: number;
  /** The endpoint model's prices in USD per million tokens (pi's models.json `cost`); 0 = unknown, cost recorded as 0. */
  priceInput: number;
  priceOutput: number;
  priceCacheRead: number;
  priceCacheWrite: number;
}

export const SUMMARY_DEFAULTS: SummarySettings = {
  provider: 'auto',
  vscodeLmModel: '',
  endpoint: 'http://127.0.0.1:11434/v1',
  model: '',
  contextWindow: 0,
  maxOutputTokens: 0,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
  timeoutSeconds: 120,
  priceInput: 0,
  priceOutput: 0,
  priceCacheRead: 0,
  priceCacheWrite: 0,
};

/** The part of vscode.WorkspaceConfiguration this needs (section "piTree.summary"). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

function int(v: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(v)));
}

/** A price: a finite number ≥ 0, else 0 (unknown). */
function price(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** The prices to compute a summary's cost with, or undefined when none is set. */
export function pricesOf(
  s: SummarySettings,
): { input: number; output: number; cacheRead: number; cacheWrite: number } | undefined {
  if (!s.priceInput && !s.priceOutput && !s.priceCacheRead && !s.priceCacheWrite) return undefined;
  return { input: s.priceInput, output: s.priceOutput, cacheRead: s.priceCacheRead, cacheWrite: s.priceCacheWrite };
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v.trim() : fallback;
}

export function readSummarySettings(cfg: ConfigReader): SummarySettings {
  const d = SUMMARY_DEFAULTS;
  const provider = cfg.get<string>('provider');
  return {
    provider: provider === 'openai-compatible' || provider === 'vscode-lm' || provider === 'pi' ? provider : 'auto',
    vscodeLmModel: str(cfg.get('vscodeLmModel'), d.vscodeLmModel),
    endpoint: str(cfg.get('endpoint'), d.endpoint) || d.endpoint,
    model: str(cfg.get('model'), d.model),
    contextWindow: int(cfg.get('contextWindow'), d.contextWindow, 0),
    maxOutputTokens: int(cfg.get('maxOutputTokens'), d.maxOutputTokens, 0),
    reserveTokens: int(cfg.get('reserveTokens'), d.reserveTokens, 0),
    keepRecentTokens: int(cfg.get('keepRecentTokens'), d.keepRecentTokens, 0),
    timeoutSeconds: int(cfg.get('timeoutSeconds'), d.timeoutSeconds, 1, 3600),
    priceInput: price(cfg.get('priceInput')),
    priceOutput: price(cfg.get('priceOutput')),
    priceCacheRead: price(cfg.get('priceCacheRead')),
    priceCacheWrite: price(cfg.get('priceCacheWrite')),
  };
}

/**
 * SecretStorage key of the API key for an endpoint. Keys are bound to the endpoint's origin, so a
 * changed endpoint setting never receives a key that was entered for another server.
 */
export function apiKeySecretName(endpoint: string): string {
  return `piTree.summary.apiKey:${endpointOrigin(endpoint)}`;
}

/** scheme://host:port of an endpoint URL (the text itself when it is not a URL). */
export function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint.trim()).origin;
  } catch {
    return endpoint.trim();
  }
}

/** A vscode.lm model matches the setting by id, family, or "vendor/family". */
export function matchesLmSetting(m: { id: string; family: string; vendor: string }, setting: string): boolean {
  const s = setting.trim();
  return !!s && (m.id === s || m.family === s || `${m.vendor}/${m.family}` === s || `${m.vendor}/${m.id}` === s);
}
