/** What a route handler receives: the authenticated request and the simulator's parts. */
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteName } from '../../domain/index.js';
import type { Faults } from '../faults.js';
import type { IdempotencyStore } from '../idempotency.js';
import type { TokenRecord } from '../model/tokens.js';
import type { Core } from '../service/core.js';
import type { SimResponse } from './response.js';

/** An authenticated, admitted request on its way to a handler. */
export interface HandlerContext {
  core: Core;
  token: TokenRecord;
  route: RouteName;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined for bodiless operations). */
  body: unknown;
  /** The body text exactly as received. */
  rawBody: string;
  idempotency: IdempotencyStore;
  faults: Faults;
  paging: { defaultPageSize: number; maxPageSize: number };
}

/** Serves one operation. */
export type Handler = (context: HandlerContext) => SimResponse | Promise<SimResponse>;

/** A route parameter that the router guarantees is present. */
export function param(context: HandlerContext, name: string): string {
  const value = context.params[name];
  if (value === undefined) throw new Error(`route ${context.route} has no parameter ${name}`);
  return value;
}

/** A request header as one string (the first, if repeated). */
export function header(context: HandlerContext, name: string): string | undefined {
  const value = context.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
