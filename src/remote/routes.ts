/** The route table: the defaults of `src/domain/routes.ts` with the config file's overrides. */
import {
  DEFAULT_ROUTES,
  UsageError,
  type HttpMethod,
  type Route,
  type RouteName,
  type RouteTable,
} from '../domain/index.js';

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function isRouteName(name: string): name is RouteName {
  return Object.hasOwn(DEFAULT_ROUTES, name);
}

function parameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
}

/**
 * Checks a config file's `routes` value: an object of route name to `{method?, path?}`. Each path
 * starts with `/`, is relative to the base URL, and uses only the parameters of the default path.
 */
export function parseRouteOverrides(value: unknown): Partial<Record<RouteName, Partial<Route>>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('routes must be an object of route name to {"method", "path"}');
  }
  const overrides: Partial<Record<RouteName, Partial<Route>>> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!isRouteName(name)) {
      throw new UsageError(
        `routes.${name} is not a route; known: ${Object.keys(DEFAULT_ROUTES).join(', ')}`,
      );
    }
    overrides[name] = parseEntry(name, entry);
  }
  return overrides;
}

function parseEntry(name: RouteName, entry: unknown): Partial<Route> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new UsageError(`routes.${name} must be an object with "method" and/or "path"`);
  }
  const { method, path } = entry as { method?: unknown; path?: unknown };
  const route: Partial<Route> = {};
  if (method !== undefined) {
    if (typeof method !== 'string' || !METHODS.includes(method.toUpperCase() as HttpMethod)) {
      throw new UsageError(`routes.${name}.method ${JSON.stringify(method)} is not an HTTP method`);
    }
    route.method = method.toUpperCase() as HttpMethod;
  }
  if (path !== undefined) {
    if (typeof path !== 'string' || !path.startsWith('/') || /[?#\s]|\/\//.test(path)) {
      throw new UsageError(
        `routes.${name}.path ${JSON.stringify(path)} must be a path starting with /`,
      );
    }
    const allowed = parameters(DEFAULT_ROUTES[name].path);
    const unknown = parameters(path).filter((parameter) => !allowed.includes(parameter));
    if (unknown.length > 0) {
      throw new UsageError(
        `routes.${name}.path ${JSON.stringify(path)} uses {${unknown.join('}, {')}}; it may use only ${allowed.map((p) => `{${p}}`).join(', ') || 'no parameters'}`,
      );
    }
    route.path = path;
  }
  return route;
}

/** The full route table: every default, with each override checked and laid over it. */
export function resolveRoutes(overrides: unknown): RouteTable {
  const checked = parseRouteOverrides(overrides);
  const table = { ...DEFAULT_ROUTES } as RouteTable;
  for (const name of Object.keys(checked) as RouteName[]) {
    table[name] = { ...DEFAULT_ROUTES[name], ...checked[name] };
  }
  return table;
}
