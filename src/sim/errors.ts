/** The simulator's refusals: each becomes an HTTP status and a `{code, message}` body. */

/** An error the simulator answers with `status` and the body `{code, message}`. */
export class SimError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers, such as `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'SimError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** 400 `validation_failed`: the request is malformed or names something invalid. */
export function validationFailed(message: string): SimError {
  return new SimError(400, 'validation_failed', message);
}

/** 404 `not_found`. */
export function notFound(message: string): SimError {
  return new SimError(404, 'not_found', message);
}

/** 401 `unauthorized`: no token, or one the service did not issue. */
export function unauthorized(message: string): SimError {
  return new SimError(401, 'unauthorized', message);
}

/** 403 `forbidden`: the token cannot see the project. */
export function forbidden(message: string): SimError {
  return new SimError(403, 'forbidden', message);
}

/** 403 `project_read_only`: a write to a project that has a `readOnlyReason`. */
export function projectReadOnly(projectId: string, reason: string): SimError {
  return new SimError(403, 'project_read_only', `project ${projectId} is read-only (${reason})`);
}
