/**
 * Parsers of the command line's values, for commander's `argParser`: namespaces written `a/b/c`, `--as-of` as a
 * seq or a time, `--valid-at` as a time or `any`, JSON values and vectors, counts. A malformed value throws commander's `InvalidArgumentError`,
 * which the parser reports as a usage error (INVALID_ARGUMENT, exit 2).
 */

import { type Command, InvalidArgumentError, Option } from 'commander';
import type { AsOf, JsonValue, Namespace, ValidAt } from '../api/types.js';

/**
 * `a/b/c` → `["a", "b", "c"]`; one leading or trailing `/` is ignored, and `/` alone (or an empty string) is the
 * root namespace `[]`. An empty segment (`a//b`) is refused.
 */
export function parseNamespace(text: string): Namespace {
  const trimmed = text.replace(/^\//, '').replace(/\/$/, '');
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  if (segments.some((s) => s === ''))
    throw new InvalidArgumentError(`namespace ${JSON.stringify(text)} has an empty segment (write it a/b/c)`);
  return segments;
}

/** A namespace as the command line writes it. */
export function formatNamespace(ns: Namespace): string {
  return ns.length === 0 ? '/' : ns.join('/');
}

/**
 * `--as-of`: a plain integer is a seq (`42`); a time is an ISO date (`2026-11-25`, `2026-11-25T08:00:00Z`) or
 * milliseconds since the epoch with an `ms` suffix (`1764057600000ms`).
 */
export function parseAsOf(text: string): AsOf {
  if (/^\d+$/.test(text)) return { seq: safeInteger(text, 'a seq') };
  const ms = /^(\d+)ms$/.exec(text);
  if (ms) return { time: safeInteger(ms[1] ?? '', 'a time in ms') };
  const time = Date.parse(text);
  if (Number.isNaN(time))
    throw new InvalidArgumentError(
      'expected a seq (42), an ISO date (2026-11-25T08:00:00Z) or ms since the epoch (1764057600000ms)',
    );
  return { time };
}

/**
 * A time: milliseconds since the epoch (`1764057600000`, or with an `ms` suffix as `--as-of` writes it) or an ISO
 * date (`2026-11-25`, `2026-11-25T08:00:00Z`).
 */
export function parseTime(text: string): number {
  const ms = /^(\d+)(?:ms)?$/.exec(text);
  if (ms) return safeInteger(ms[1] ?? '', 'a time in ms');
  const time = Date.parse(text);
  if (Number.isNaN(time))
    throw new InvalidArgumentError('expected an ISO date (2026-11-25T08:00:00Z) or ms since the epoch (1764057600000)');
  return time;
}

/** `--valid-at`: a time (as `parseTime` reads it) or `any` (every memory, however valid). */
export function parseValidAt(text: string): ValidAt {
  if (text === 'any') return 'any';
  try {
    return parseTime(text);
  } catch {
    throw new InvalidArgumentError(
      'expected a time (an ISO date 2026-11-25T08:00:00Z, or ms since the epoch) or "any"',
    );
  }
}

function safeInteger(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`${what} must be an integer in 0..=2^53-1`);
  return n;
}

/** A count or seq: an integer in 0..=2^53-1. */
export function parseCount(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError('expected a non-negative integer');
  return safeInteger(text, 'the number');
}

/** A JSON value. */
export function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new InvalidArgumentError(
      `not JSON (${e instanceof Error ? e.message : String(e)}); quote a string as '"text"'`,
    );
  }
}

/** A JSON object (metadata). */
export function parseJsonObject(text: string): { [key: string]: JsonValue } {
  const v = parseJson(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidArgumentError('expected a JSON object');
  return v;
}

/** A vector: a JSON array of numbers. */
export function parseVector(text: string): number[] {
  const v = parseJson(text);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number'))
    throw new InvalidArgumentError('expected a JSON array of numbers');
  return v as number[];
}

/** A comma-separated list (`read,write`), each item one of `allowed`. */
export function listOf<T extends string>(allowed: readonly T[]): (text: string) => T[] {
  return (text) => {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const item of items) {
      if (!(allowed as readonly string[]).includes(item))
        throw new InvalidArgumentError(`${JSON.stringify(item)} is not one of ${allowed.join(', ')}`);
    }
    return items as T[];
  };
}

/** `--as-of <seq|time>`, parsed by `parseAsOf`. */
export function asOfOption(): Option {
  return new Option('--as-of <seq|time>', 'a seq (42), an ISO date or ms (1764057600000ms)').argParser(parseAsOf);
}

/** `--valid-at <ms|iso|any>`, parsed by `parseValidAt`. */
export function validAtOption(): Option {
  return new Option(
    '--valid-at <ms|iso|any>',
    'the facts true at this time (default: now), or "any" for all, ended and superseded ones too',
  ).argParser(parseValidAt);
}

/** The `<ns> <key>` arguments naming one memory. */
export function memoryArguments(cmd: Command): Command {
  return cmd.argument('<ns>', 'namespace, a/b/c', parseNamespace).argument('<key>', 'key');
}
