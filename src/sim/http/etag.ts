/** Strong ETags computed from a response body, and `If-None-Match` evaluation. */
import { createHash } from 'node:crypto';

/** A strong ETag of exactly this body text. */
export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * True when `If-None-Match` names `etag` (weak comparison, as RFC 9110 prescribes for this
 * header), or is `*`.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === etag);
}
