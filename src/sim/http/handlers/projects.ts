/** List projects, get project (with a strong ETag), and health. */
import { projectJson } from '../../model/rows.js';
import { pathProject } from '../access.js';
import { header, type Handler } from '../context.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';
import { empty, json, type SimResponse } from '../response.js';

/** Every project the token sees, unpaged. */
export const listProjects: Handler = (context) =>
  json(200, context.core.state.visibleProjects(context.token).map(projectJson));

/** One project, or 304 when `If-None-Match` names its current ETag. */
export const getProject: Handler = (context) => {
  const body = JSON.stringify(projectJson(pathProject(context)));
  return conditional(body, header(context, 'if-none-match'));
};

/** A 200 with `body` and its ETag, or 304 when the client already has it. */
export function conditional(
  body: string,
  ifNoneMatch: string | undefined,
  headers: Record<string, string> = {},
): SimResponse {
  const etag = etagOf(body);
  if (ifNoneMatchHits(ifNoneMatch, etag)) return empty(304, { ...headers, ETag: etag });
  return { status: 200, body, headers: { ...headers, ETag: etag } };
}
