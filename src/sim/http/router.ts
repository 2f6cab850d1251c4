/** Matches a request's method and path (relative to `/v1`) to an operation of `DEFAULT_ROUTES`. */
import { DEFAULT_ROUTES, type HttpMethod, type RouteName } from '../../domain/index.js';

/** The outcome of matching: an operation, a known path with another method, or nothing. */
export type RouteMatch =
  | { kind: 'route'; route: RouteName; params: Record<string, string> }
  | { kind: 'method'; allowed: HttpMethod[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: RouteName;
  method: HttpMethod;
  pattern: RegExp;
  names: string[];
}

/** The operations' paths compiled to patterns. */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor() {
    this.compiled = (Object.keys(DEFAULT_ROUTES) as RouteName[]).map((route) => {
      const { method, path } = DEFAULT_ROUTES[route];
      const names: string[] = [];
      const source = path.replace(/\{(\w+)\}/g, (_match, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, method, pattern: new RegExp(`^${source}$`), names };
    });
  }

  /** Matches `path` (already stripped of `/v1`) and `method`. */
  match(method: string, path: string): RouteMatch {
    const allowed: HttpMethod[] = [];
    for (const candidate of this.compiled) {
      const found = candidate.pattern.exec(path);
      if (found === null) continue;
      const params = decodeParams(candidate.names, found.slice(1));
      if (params === undefined) continue;
      if (candidate.method === method) return { kind: 'route', route: candidate.route, params };
      allowed.push(candidate.method);
    }
    return allowed.length > 0 ? { kind: 'method', allowed } : { kind: 'none' };
  }
}

function decodeParams(names: string[], values: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(values[index] ?? '');
    });
  } catch {
    return undefined;
  }
  return params;
}
