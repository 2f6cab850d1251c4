/** Wraps a create handler in the idempotency rules (see `../idempotency.ts`). */
import type { ProjectRow } from '../model/rows.js';
import { header, type HandlerContext } from './context.js';
import type { SimResponse } from './response.js';

/** The header carrying the key. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on a replayed response. */
export const REPLAY_HEADER = 'Idempotent-Replayed';

/** Runs `create` once per (token, project, key); repeats replay or conflict. */
export function idempotentCreate(
  context: HandlerContext,
  project: ProjectRow,
  create: () => SimResponse,
): SimResponse {
  const key = header(context, IDEMPOTENCY_KEY_HEADER);
  if (key === undefined || key === '') return create();
  const scope = { tokenHash: context.token.hash, projectId: project.id, key };
  const fingerprint = context.idempotency.fingerprint(context.route, context.rawBody, context.body);
  const cached = context.idempotency.lookup(scope, fingerprint);
  if (cached !== undefined) {
    return { ...cached, headers: { ...cached.headers, [REPLAY_HEADER]: 'true' } };
  }
  const response = create();
  if (response.status >= 200 && response.status < 300) {
    context.idempotency.remember(scope, fingerprint, {
      status: response.status,
      body: response.body ?? '',
      headers: { ...response.headers },
    });
  }
  return response;
}
