/**
 * The chat model the command line lends `remember`: an OpenAI-compatible endpoint (`--chat-url`, `--chat-model`,
 * its key in EDGEMEM_CHAT_KEY, never on the command line), used as the extractor of `--messages` and, with
 * `--judge`, as the judge of the facts the rules call uncertain. Without them `remember` uses the engine's rules
 * alone. A model that fails writes nothing: MODEL_FAILED (exit 14).
 */

import { type Command, Option } from 'commander';
import { invalid } from '../api/errors.js';
import type { ChatEndpoint, ModelOptions } from '../entries/node.js';

export interface ModelCliOptions {
  chatUrl?: string;
  chatModel?: string;
  judge?: boolean;
}

/** Adds `--chat-url`, `--chat-model` and `--judge` to `cmd` (`extracts`: it takes `--messages` too). */
export function modelOptions(cmd: Command, extracts = false): Command {
  const use = extracts ? 'extracts the facts of --messages, and judges with --judge' : 'the judge of --judge';
  return cmd
    .addOption(
      new Option(
        '--chat-url <url>',
        `an OpenAI-compatible chat endpoint (its API base, e.g. http://localhost:11434/v1): ${use}`,
      ).env('EDGEMEM_CHAT_URL'),
    )
    .addOption(new Option('--chat-model <name>', "the chat endpoint's model").env('EDGEMEM_CHAT_MODEL'))
    .option('--judge', 'ask the chat model about the facts the rules cannot place (else the rules decide alone)');
}

/** The chat endpoint the options name, or undefined; INVALID_ARGUMENT when half named. */
function endpoint(o: ModelCliOptions): ChatEndpoint | undefined {
  if (o.chatUrl === undefined && o.chatModel === undefined) return undefined;
  if (o.chatUrl === undefined) throw invalid('--chat-model needs --chat-url URL (or EDGEMEM_CHAT_URL)');
  if (o.chatModel === undefined) throw invalid('--chat-url needs --chat-model NAME (or EDGEMEM_CHAT_MODEL)');
  const apiKey = process.env.EDGEMEM_CHAT_KEY;
  return { url: o.chatUrl, model: o.chatModel, ...(apiKey ? { apiKey } : {}) };
}

/**
 * The store's `extractor` (when `extract`: a command given `--messages`) and `judge` (with `--judge`), both the chat
 * endpoint the options name.
 */
export function storeModels(o: ModelCliOptions, extract: boolean): ModelOptions {
  if (!extract && !o.judge) return {};
  const chat = endpoint(o);
  if (!chat && (extract || o.judge)) {
    throw invalid(
      `${extract ? '--messages' : '--judge'} needs a chat model: --chat-url URL --chat-model NAME (or EDGEMEM_CHAT_URL, EDGEMEM_CHAT_MODEL)`,
    );
  }
  return {
    ...(chat && extract ? { extractor: chat } : {}),
    ...(chat && o.judge ? { judge: chat } : {}),
  };
}
