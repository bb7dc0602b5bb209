// What stats sums of each message that carries usage (assistant and toolResult messages, usage entries,
// compactions, branch summaries), one column per figure, by record number. `pi-tree stats` fills them
// while the session is read (noteUsage): the WebAssembly validator, which walks every byte of a message
// line anyway, notes where its usage, provider and model start and counts its toolCall blocks, so the
// figures are read from a few bytes while the line is still in the read buffer and the file is read
// once. Records it could not note (the JavaScript validator's lines, escapes, other shapes) are read
// again from the file by sumUsage, as before.
import { readNotedFacts, UsageFacts } from '../scan/messageFacts.js';
import type { MessageLineObserver } from '../index/reader.js';
import { grown } from '../index/indexRecord.js';
import type { SessionIndex } from '../index/sessionIndex.js';
import { asText } from '../format/values.js';

/** A provider/model pair as stats names it, interned. */
export interface ModelPair {
  provider: string;
  model: string;
}

/** Provider/model pairs interned once, by their names (consecutive messages mostly share their model). */
export class ModelPairs {
  readonly list: ModelPair[] = [];
  private readonly ids = new Map<string, number>();
  private last: [unknown, unknown, number] = [Symbol(), Symbol(), -1];

  /** The id of a pair, named as stats names them (String of the raw value, '' when absent). */
  id(provider: unknown, model: unknown): number {
    if (this.last[0] === provider && this.last[1] === model) return this.last[2];
    const key = `${asText(provider)}/${asText(model)}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.list.length;
      this.list.push({ provider: asText(provider ?? ''), model: asText(model ?? '') });
      this.ids.set(key, id);
    }
    this.last = [provider, model, id];
    return id;
  }
}

/**
 * Usage figures by slot: by record number for the columns the reader fills (noteUsage), by place in
 * its list of carriers for sumUsage's own (so that a short path of a big session takes little room).
 */
export class UsageColumns {
  /** The index the records belong to (a re-read file starts the columns over). */
  index: SessionIndex | undefined;
  input = new Float64Array(0);
  output = new Float64Array(0);
  cacheRead = new Float64Array(0);
  cacheWrite = new Float64Array(0);
  cost = new Float64Array(0);
  toolCalls = new Int32Array(0);
  /** Index in `models` of an assistant message's provider/model; -1 for other records. */
  model = new Int32Array(0);
  /** 1 when the slot's figures are in the columns. */
  known = new Uint8Array(0);

  /** `models`: shared with other columns whose pair ids are summed with these. */
  constructor(readonly models = new ModelPairs()) {}

  /** Starts over for `index` (its records are numbered from 0 again). */
  bind(index: SessionIndex): void {
    this.index = index;
    this.known = new Uint8Array(this.known.length);
    // As many as the index was sized for (pages never written take no memory): no copies as it grows.
    if (index.capacity > 0) this.reserve(index.capacity - 1);
  }

  /** Room for slot `i`. */
  reserve(i: number): void {
    if (i < this.known.length) return;
    const cap = Math.max(1024, Math.ceil(this.known.length * 1.5), i + 1);
    this.input = grown(this.input, cap);
    this.output = grown(this.output, cap);
    this.cacheRead = grown(this.cacheRead, cap);
    this.cacheWrite = grown(this.cacheWrite, cap);
    this.cost = grown(this.cost, cap);
    this.toolCalls = grown(this.toolCalls, cap);
    this.model = grown(this.model, cap);
    this.known = grown(this.known, cap);
  }

  /** Sets slot `i`'s figures; `pair` -1 for a record that is not an assistant message. */
  set(
    i: number,
    input: number,
    output: number,
    cacheRead: number,
    cacheWrite: number,
    cost: number,
    toolCalls: number,
    pair: number,
  ): void {
    this.reserve(i);
    this.input[i] = input;
    this.output[i] = output;
    this.cacheRead[i] = cacheRead;
    this.cacheWrite[i] = cacheWrite;
    this.cost[i] = cost;
    this.toolCalls[i] = toolCalls;
    this.model[i] = pair;
    this.known[i] = 1;
  }

  has(i: number): boolean {
    return i < this.known.length && this.known[i] === 1;
  }
}

/** Role codes (sessionIndex.ts ROLE_NAMES) of the messages whose usage stats sums. */
const ASSISTANT = 2;
const TOOL_RESULT = 3;

/**
 * A reader observer (ReadOptions.onMessageLine) that notes into `cols` the figures of each assistant
 * and toolResult message line the validator noted, right after the line was indexed.
 */
export function noteUsage(cols: UsageColumns): MessageLineObserver {
  const f = new UsageFacts();
  return (index, i, b, message) => {
    if (cols.index !== index) cols.bind(index);
    const role = index.roleCodeOf(i);
    if ((role !== ASSISTANT && role !== TOOL_RESULT) || !message.factsKnown || !readNotedFacts(b, message, f)) return;
    cols.set(
      i,
      f.input,
      f.output,
      f.cacheRead,
      f.cacheWrite,
      f.cost,
      role === ASSISTANT ? f.toolCalls : 0,
      role === ASSISTANT ? cols.models.id(f.provider, f.model) : -1,
    );
  };
}
