// pi 1.6.0's serializeConversation (core/compaction/utils.js): the conversation as plain text, so the
// summarizing model reads it instead of continuing it. Thinking is left out; tool results are cut
// to 2000 characters. A tool-call argument nested too deeply for JSON.stringify (pi throws there) is
// written cut at SHOWN_DEPTH: the model reads a marker instead of thousands of brackets.
import type { AgentMessage } from '../format/types.js';
import { contentText, sliceHead } from './text.js';
import { jsonShown } from '../../shared/safeJson.js';
import { asText } from '../format/values.js';

type Obj = Record<string, unknown>;

const TOOL_RESULT_MAX_CHARS = 2000;

function truncateForSummary(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${sliceHead(text, max)}\n\n[... ${text.length - max} more characters truncated]`;
}

/** `messages` must already be LLM messages (context.ts convertToLlm). */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  const parts: string[] = [];
  for (const msg of messages) {
    if (msg.role === 'user') {
      const text = contentText(msg.content, '');
      if (text) parts.push(`[User]: ${text}`);
    } else if (msg.role === 'assistant') {
      const blocks = Array.isArray(msg.content) ? (msg.content as Obj[]) : [];
      const calls: string[] = [];
      for (const b of blocks) {
        if (b?.type !== 'toolCall') continue;
        const args = Object.entries((b.arguments as Obj | undefined) ?? {})
          .map(([k, v]) => `${k}=${jsonShown(v)}`)
          .join(', ');
        calls.push(`${asText(b.name)}(${args})`);
      }
      if (blocks.some((b) => b?.type === 'text')) parts.push(`[Assistant]: ${contentText(blocks)}`);
      if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join('; ')}`);
    } else if (msg.role === 'toolResult') {
      const text = contentText(msg.content, '');
      if (text) parts.push(`[Tool result]: ${truncateForSummary(text, TOOL_RESULT_MAX_CHARS)}`);
    }
  }
  return parts.join('\n\n');
}
