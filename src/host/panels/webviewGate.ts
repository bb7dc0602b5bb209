// The gate every message from a webview passes before the host looks at it: floods and oversized
// payloads are dropped, everything else is validated against the protocol. The webview is untrusted.
// Pure (no vscode), so it is unit-tested directly.
import type { WebviewMessage } from '../../protocol.js';
import { validateWebviewMessage } from '../../protocolValidation.js';

export interface GateLimits {
  /** Messages accepted per rolling second; the rest are dropped until the rate falls. */
  perSecond: number;
  /** Largest message, measured as its JSON length. */
  maxBytes: number;
}

export const DEFAULT_GATE_LIMITS: GateLimits = { perSecond: 300, maxBytes: 2 * 1024 * 1024 };

export type GateResult<M = WebviewMessage> =
  | { ok: true; message: M }
  /** `replySeq`: the request's seq when it can be answered with an error; `warn`: worth a log line. */
  | { ok: false; reason: string; replySeq?: number; warn: boolean };

export class WebviewGate<M = WebviewMessage> {
  private times: number[] = [];

  constructor(
    private readonly limits: GateLimits = DEFAULT_GATE_LIMITS,
    private readonly now: () => number = Date.now,
    /** The protocol to check against (the compare view has its own). */
    private readonly validate: (
      m: unknown,
    ) => { ok: true; value: M } | { ok: false; reason: string } = validateWebviewMessage as never,
  ) {}

  check(raw: unknown): GateResult<M> {
    const now = this.now();
    this.times = this.times.filter((t) => now - t < 1000);
    if (this.times.length >= this.limits.perSecond) {
      // Logged once per flood, not once per dropped message.
      const first = this.times.length === this.limits.perSecond;
      this.times.push(now);
      return {
        ok: false,
        reason: `more than ${this.limits.perSecond} messages in a second; dropping until it calms down`,
        warn: first,
      };
    }
    this.times.push(now);
    let size: number;
    try {
      size = JSON.stringify(raw)?.length ?? 0;
    } catch {
      size = Infinity;
    }
    if (size > this.limits.maxBytes)
      return { ok: false, reason: `message of ${size} bytes rejected (limit ${this.limits.maxBytes})`, warn: true };
    const check = this.validate(raw);
    if (check.ok) return { ok: true, message: check.value };
    const seq = (raw as { seq?: unknown } | null)?.seq;
    return {
      ok: false,
      reason: check.reason,
      replySeq: typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined,
      warn: true,
    };
  }
}
