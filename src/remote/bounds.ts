/**
 * How much of a response the client takes, per kind of answer. A body past its bound is refused
 * while it is read, before it is parsed: memory follows what a page or a record can hold, not
 * what a broken or hostile service sends.
 */
import { MAX_BODY_VALUES, MAX_NESTING_DEPTH, type JsonLimits } from '../domain/json-bounds.js';

/** What each row of a tasks page may take of the page's body on average, in bytes. */
export const PAGE_ROW_ALLOWANCE_BYTES = 64 * 1024;
/**
 * The largest body of one record (get project, get task, a write's answer), in bytes: room for a
 * record at the validator's `MAX_RECORD_CHARS` (1 Mi characters) written with multi-byte UTF-8
 * and escapes. A page may also hold one such record beyond its rows' allowance.
 */
export const MAX_RECORD_BODY_BYTES = 4 * 1024 * 1024;
/** The part of an error answer's body read for its code and message, in bytes; the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Bodies longer than this, in characters, are scanned for their bounds before `JSON.parse`. */
export const SCAN_BEFORE_PARSE_CHARS = 1024 * 1024;

/** The largest body of a tasks page of `pageSize` rows: 500 rows take at most 36 MiB. */
export function pageBodyBytes(pageSize: number): number {
  return pageSize * PAGE_ROW_ALLOWANCE_BYTES + MAX_RECORD_BODY_BYTES;
}

/**
 * What the scan of a large body stops at: nesting past a record's depth in its list, more values
 * than `MAX_BODY_VALUES`, and for a page more rows than asked for.
 */
export function bodyLimits(maxItems?: number): JsonLimits {
  return {
    maxDepth: MAX_NESTING_DEPTH + 1,
    maxValues: MAX_BODY_VALUES,
    ...(maxItems === undefined ? {} : { maxItems }),
  };
}
