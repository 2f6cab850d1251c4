/**
 * Bounds on JSON text checked before it is parsed: `JSON.parse` builds the whole value, and a
 * body of tiny values (`[{},{},...]`) takes some thirty times its size in memory. A scan counts
 * values, nesting and top-level items without building anything, and stops at the first bound
 * passed. Pure: it returns the problem, and the caller throws with its context.
 */

/** Levels of arrays and objects inside one record (or one event) that are accepted. */
export const MAX_NESTING_DEPTH = 32;
/** JSON values in one body, whatever its shape (about 100 MB once parsed at the worst). */
export const MAX_BODY_VALUES = 1_000_000;

/** What a scan must stop at. */
export interface JsonLimits {
  /** Deepest nesting of arrays and objects, the outermost counting as 1. */
  maxDepth: number;
  /** Most values (containers and scalars) in the whole text. */
  maxValues: number;
  /** Most items in the outermost array (a page's rows). */
  maxItems?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The index of the quote closing the string opened at `start` (the text's end if none). */
function endOfString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * The first of `limits` that JSON `text` passes ("nests deeper than 32 levels", "holds more than
 * 500 items"), or undefined within them. Text that is not JSON is left to the parser to refuse.
 */
export function jsonOverLimits(text: string, limits: JsonLimits): string | undefined {
  const maxItems = limits.maxItems ?? Number.POSITIVE_INFINITY;
  let depth = 0;
  let values = 1;
  // n commas at the outermost level separate n + 1 items.
  let outerCommas = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = endOfString(text, i);
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      values += 1;
      if (depth > limits.maxDepth) return `nests deeper than ${limits.maxDepth} levels`;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    } else if (code === COMMA) {
      values += 1;
      if (depth === 1) outerCommas += 1;
      if (outerCommas >= maxItems) return `holds more than ${maxItems} items`;
    } else {
      continue;
    }
    if (values > limits.maxValues) return `holds more than ${limits.maxValues} values`;
  }
  return undefined;
}
