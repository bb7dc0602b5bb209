// pi-ai's getCurrentSystemMessage (utils/transcript.js): every system message of a transcript replayed
// into one: content appended, sections patched by name (null removes), tools added/removed by name.
import type { AgentMessage } from '../format/types.js';
import { contentText } from './text.js';

type Obj = Record<string, unknown>;

function currentTools(messages: readonly AgentMessage[]): Obj[] {
  const tools = new Map<unknown, Obj>();
  for (const m of messages) {
    if (m.role !== 'system') continue;
    for (const t of (m.toolsRemoved as Obj[] | undefined) ?? []) tools.delete(t.name);
    for (const t of (m.toolsAdded as Obj[] | undefined) ?? []) tools.set(t.name, t);
  }
  return [...tools.values()];
}

export function getCurrentSystemMessage(messages: readonly AgentMessage[]): AgentMessage | undefined {
  const content: string[] = [];
  const sections = new Map<string, unknown>();
  let timestamp: number | undefined;
  for (const m of messages) {
    if (m.role !== 'system') continue;
    timestamp ??= m.timestamp;
    const text = contentText(m.content);
    if (text.length > 0) content.push(text);
    for (const [name, value] of Object.entries((m.sections as Obj | undefined) ?? {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
  }
  const tools = currentTools(messages);
  if (timestamp === undefined && tools.length === 0) return undefined;
  return {
    role: 'system',
    content: content.join('\n\n'),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.length > 0 ? { toolsAdded: tools } : {}),
    timestamp: timestamp ?? 0,
  };
}
