/**
 * LangChain messages as the `{ role, content }` messages an extractor reads: a `HumanMessage` is `user`, an
 * `AIMessage` `assistant`, a `SystemMessage` `system`, a `ToolMessage` `tool`; content parts other than text are
 * left out. Recognised by shape (`getType()` / `_getType()`), so no copy of `@langchain/core` is imported here.
 */

import { EdgememError } from '../api/errors.js';
import type { ChatMessage } from '../api/types.js';

/** What a LangChain `BaseMessage` offers that this needs. */
export interface MessageLike {
  content: unknown;
  getType?: () => string;
  _getType?: () => string;
}

const ROLES: Record<string, string> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' };

/** A message's text: its string content, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'string'
        ? part
        : typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
          ? String((part as { text?: unknown }).text ?? '')
          : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

/** `messages` (LangChain messages, or `{ role, content }` already) as chat messages. */
export function toChatMessages(messages: readonly (ChatMessage | MessageLike)[]): ChatMessage[] {
  if (!Array.isArray(messages)) throw new EdgememError('INVALID_ARGUMENT', 'messages must be an array');
  return messages.map((m) => {
    if (typeof m !== 'object' || m === null) throw new EdgememError('INVALID_ARGUMENT', 'a message must be an object');
    if (typeof (m as ChatMessage).role === 'string' && typeof m.content === 'string') return m as ChatMessage;
    const like = m as MessageLike;
    const type = like.getType?.() ?? like._getType?.();
    if (type === undefined)
      throw new EdgememError('INVALID_ARGUMENT', 'a message must be a LangChain message or { role, content }');
    return { role: ROLES[type] ?? type, content: textOf(like.content) };
  });
}
