/** The `page` and `pageSize` query parameters of list tasks (spec 4.2). */
import { MAX_PAGE_SIZE } from '../../domain/index.js';
import { validationFailed } from '../errors.js';

/** The page size when the client sends none (the spec shows no default). */
export const DEFAULT_PAGE_SIZE = 100;

/** A checked page request: `page` is 1-indexed. */
export interface PageRequest {
  page: number;
  pageSize: number;
}

function positiveInteger(query: URLSearchParams, name: string, fallback: number, max: number) {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const [text] = values;
  if (values.length > 1 || text === undefined || !/^\d+$/.test(text)) {
    throw validationFailed(`${name} must be one positive integer`);
  }
  const value = Number(text);
  if (value < 1 || value > max || !Number.isSafeInteger(value)) {
    throw validationFailed(`${name} must be from 1 to ${max}`);
  }
  return value;
}

/** Reads and checks `page` (default 1) and `pageSize` (default `defaultPageSize`, at most `max`). */
export function parsePaging(
  query: URLSearchParams,
  defaultPageSize = DEFAULT_PAGE_SIZE,
  maxPageSize = MAX_PAGE_SIZE,
): PageRequest {
  return {
    page: positiveInteger(query, 'page', 1, Number.MAX_SAFE_INTEGER),
    pageSize: positiveInteger(query, 'pageSize', defaultPageSize, maxPageSize),
  };
}
