// One variants run as the editor holds it: the question, each variant's outcome as the core last
// reported it, its answer as it streamed, and what the user did with it since (adopted, discarded).
// The progress notification and the variants view both read it; the view hears each change. What the
// view gets of it is a card per variant (variantsProtocol.ts), without the paths of folders and sessions.
import { isAbsolute, relative } from 'node:path';
import type {
  VariantCheck,
  VariantFileChange,
  VariantOutcome,
  VariantPhase,
  VariantProgress,
  VariantsRun,
} from '../../core/variants/index.js';
import type { VariantCard, VariantsInfo } from '../../variantsProtocol.js';
import type { AdoptSession } from './variantsService.js';

/** The most of a variant's answer kept (and shown): the start, then a note. */
const MAX_ANSWER = 200_000;

const ENDED: readonly VariantPhase[] = ['done', 'failed', 'cancelled'];

export type RunListener = (
  e: { kind: 'variant'; index: number } | { kind: 'delta'; index: number; delta: string },
) => void;

export class VariantsRunState {
  readonly outcomes: VariantOutcome[] = [];
  private readonly answers: string[] = [];
  private readonly adopts = new Map<number, AdoptSession>();
  private readonly discarded = new Set<number>();
  private readonly listeners = new Set<RunListener>();
  run: VariantsRun | undefined;

  constructor(
    readonly info: VariantsInfo,
    /** The session the variants fork from, and its working folder. */
    readonly source: { file: string; entryId: string; cwd: string },
    /** How many variants the run has. */
    readonly size: number,
  ) {
    for (let i = 0; i < size; i++) this.outcomes.push({ index: i, phase: 'queued', check: null });
  }

  /** The core's progress (VariantsRequest.onProgress). */
  readonly progress = (p: VariantProgress): void => {
    if (p.kind === 'delta') {
      if (!this.outcomes[p.index]) return;
      const had = this.answers[p.index] ?? '';
      if (had.length >= MAX_ANSWER) return;
      this.answers[p.index] = had + p.delta;
      this.emit({ kind: 'delta', index: p.index, delta: p.delta });
      return;
    }
    this.setOutcome(p.outcome);
  };

  /** The run started: its outcomes as they are now. */
  attach(run: VariantsRun): void {
    this.run = run;
    for (const o of run.outcomes) this.setOutcome(o);
  }

  private setOutcome(o: VariantOutcome): void {
    if (!Number.isSafeInteger(o.index) || o.index < 0 || o.index >= this.size) return;
    this.outcomes[o.index] = o;
    // The whole answer, once pi wrote it, replaces what streamed.
    if (o.answer !== undefined) this.answers[o.index] = o.answer.slice(0, MAX_ANSWER);
    this.emit({ kind: 'variant', index: o.index });
  }

  /** The run failed as a whole (its request was refused after it started): every variant not ended says why. */
  failAll(error: string): void {
    this.outcomes.forEach((o, i) => {
      if (!this.ended(i)) this.setOutcome({ ...o, phase: 'failed', error });
    });
  }

  on(l: RunListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private emit(e: Parameters<RunListener>[0]): void {
    for (const l of this.listeners) l(e);
  }

  /** Variant `index`; throws (words for the view) when the run has none there. */
  outcome(index: number): VariantOutcome {
    const o = this.outcomes[index];
    if (!o) throw new Error(`There is no variant ${index + 1} in this run.`);
    return o;
  }

  ended(index: number): boolean {
    return ENDED.includes(this.outcome(index).phase);
  }

  get finished(): number {
    return this.outcomes.filter((_o, i) => this.ended(i)).length;
  }

  adopted(index: number, a: AdoptSession | undefined): void {
    if (a) this.adopts.set(index, a);
    else this.adopts.delete(index);
    this.emit({ kind: 'variant', index });
  }

  adoptOf(index: number): AdoptSession | undefined {
    return this.adopts.get(index);
  }

  markDiscarded(index: number): void {
    this.discarded.add(index);
    this.adopts.delete(index);
    this.emit({ kind: 'variant', index });
  }

  isDiscarded(index: number): boolean {
    return this.discarded.has(index);
  }

  /** A changed file of variant `index` by its place in the card's list, relative to the folders. */
  file(index: number, file: number): string {
    const f = this.outcome(index).files?.[file];
    if (!f) throw new Error(`Variant ${index + 1} has no file ${file + 1}.`);
    return this.relativePath(index, f.path);
  }

  relativePath(index: number, path: string): string {
    const folder = this.outcome(index).folder;
    const rel = isAbsolute(path) && folder ? relative(folder, path) : path;
    if (!rel || isAbsolute(rel) || rel.split(/[\\/]/).includes('..'))
      throw new Error(`${path} is not a file of the variant's folder.`);
    return rel;
  }

  card(index: number): VariantCard {
    const o = this.outcome(index);
    const files = (o.files ?? []).map((f: VariantFileChange) => ({
      name: this.safeName(index, f.path),
      status: f.status,
      added: f.added,
      removed: f.removed,
    }));
    const check = (c: VariantCheck) => ({
      exitCode: c.exitCode,
      ...(c.signal ? { signal: c.signal } : {}),
      output: c.output,
      ms: c.ms,
    });
    return {
      index,
      model: o.model ?? "pi's default model",
      phase: o.phase,
      answer: this.answers[index] ?? '',
      files,
      ...(o.tokens ? { tokens: { input: o.tokens.input, output: o.tokens.output, total: o.tokens.total } } : {}),
      ...(o.cost !== undefined ? { cost: o.cost } : {}),
      ...(o.ms !== undefined ? { ms: o.ms } : {}),
      check: o.check ? check(o.check) : null,
      ...(o.error ? { error: o.error } : {}),
      made: !!o.session && !this.discarded.has(index),
      ...(this.adopts.has(index) ? { adopted: true } : {}),
      ...(this.discarded.has(index) ? { discarded: true } : {}),
    };
  }

  cards(): VariantCard[] {
    return this.outcomes.map((_o, i) => this.card(i));
  }

  private safeName(index: number, path: string): string {
    try {
      return this.relativePath(index, path);
    } catch {
      return path;
    }
  }
}
