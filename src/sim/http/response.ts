/** Responses as handlers return them, before the pipeline adds the common headers. */
import type { SimError } from '../errors.js';

/** A response: status, body text (JSON unless a header says otherwise) and headers. */
export interface SimResponse {
  status: number;
  /** The exact body text; absent for 204 and 304. */
  body?: string;
  headers?: Record<string, string>;
}

/** The content type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON response. */
export function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): SimResponse {
  return { status, body: JSON.stringify(value), headers };
}

/** A response without a body. */
export function empty(status: number, headers: Record<string, string> = {}): SimResponse {
  return { status, headers };
}

/** The `{code, message}` answer of a refusal. */
export function errorResponse(error: SimError): SimResponse {
  return json(error.status, { code: error.code, message: error.message }, { ...error.headers });
}
