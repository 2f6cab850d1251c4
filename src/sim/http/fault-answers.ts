/** What each injected failure answers (see `../faults.ts`). */
import type { RouteName } from '../../domain/index.js';
import type { FaultRule } from '../faults.js';
import { json, type SimResponse } from './response.js';

const DEFAULT_FAULT_STATUS = 500;
const DEFAULT_HTML_STATUS = 502;

/** The error code an injected status carries unless the rule names one. */
const CODE_FOR_STATUS: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'idempotency_conflict',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** The answer of a failure that does not drop the socket. */
export function faultAnswer(rule: FaultRule, route: RouteName): SimResponse {
  const headers = { ...rule.headers };
  switch (rule.kind) {
    case 'html': {
      const status = rule.status ?? DEFAULT_HTML_STATUS;
      const body =
        rule.body ??
        `<!DOCTYPE html>\n<html><head><title>${status}</title></head><body><h1>${status} Bad Gateway</h1></body></html>\n`;
      return { status, body, headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers } };
    }
    case 'malformed':
      return {
        status: rule.status ?? 200,
        body: rule.body ?? '[{"id": "t_1", "name": "Trunc',
        headers,
      };
    case 'wrongShape': {
      const listing = route.startsWith('list');
      const body = rule.body ?? (listing ? '{"items": [], "unexpected": true}' : '["unexpected"]');
      return { status: rule.status ?? 200, body, headers };
    }
    default: {
      const status = rule.status ?? DEFAULT_FAULT_STATUS;
      const code = rule.code ?? CODE_FOR_STATUS[status] ?? 'injected_fault';
      const answer = json(
        status,
        { code, message: rule.message ?? `injected fault: HTTP ${status}` },
        headers,
      );
      return rule.body === undefined ? answer : { ...answer, body: rule.body };
    }
  }
}
