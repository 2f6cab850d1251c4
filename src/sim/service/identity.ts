/**
 * Integration identities (spec sections 2 and 5): each token gets its own member row on each
 * project it works in, created on its first use there, and it is the default assignee of the
 * tasks that token creates without `assigneeIds`.
 */
import type { ProjectRow } from '../model/rows.js';
import { memberJson } from '../model/rows.js';
import type { TokenRecord } from '../model/tokens.js';
import { emit, type Core } from './core.js';

/** The member id of `token`'s integration identity on `project`, creating it if needed. */
export function ensureIntegrationMember(
  core: Core,
  project: ProjectRow,
  token: TokenRecord,
): string {
  const existing = project.integrationMembers.get(token.hash);
  if (existing !== undefined && project.members.has(existing)) return existing;
  const id = core.state.newId('m');
  const member = {
    id,
    name: `${token.label} (integration)`,
    kind: 'integration' as const,
    tokenHash: token.hash,
  };
  core.state.memberIds.add(id);
  project.members.set(id, member);
  project.integrationMembers.set(token.hash, id);
  emit(core, 'member.changed', project.id, id, memberJson(member));
  return id;
}
