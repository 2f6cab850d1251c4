/** Project rosters: adding and removing members (scripted; the API only lists them). */
import { memberJson, taskJson, type MemberRow, type ProjectRow } from '../model/rows.js';
import { emit, timestamp, type Core } from './core.js';

/** What a script gives to add a member. */
export interface MemberInput {
  id?: string;
  name?: string;
  kind?: 'person' | 'integration';
}

/** Adds a member to a project's roster. */
export function addMember(core: Core, project: ProjectRow, input: MemberInput = {}): MemberRow {
  const id = input.id ?? core.state.newId('m');
  if (project.members.has(id)) throw new Error(`member ${id} is already on project ${project.id}`);
  const row: MemberRow = { id, name: input.name ?? `Member ${id}`, kind: input.kind ?? 'person' };
  core.state.memberIds.add(id);
  project.members.set(id, row);
  emit(core, 'member.changed', project.id, id, memberJson(row));
  return row;
}

/** Removes a member and unassigns it from every task of the project (each announced). */
export function removeMember(core: Core, project: ProjectRow, memberId: string): void {
  const row = project.members.get(memberId);
  if (row === undefined) throw new Error(`member ${memberId} is not on project ${project.id}`);
  project.members.delete(memberId);
  if (row.tokenHash !== undefined) project.integrationMembers.delete(row.tokenHash);
  emit(core, 'member.changed', project.id, memberId);
  for (const task of project.tasks.all()) {
    if (!task.assigneeIds.includes(memberId)) continue;
    task.assigneeIds = Object.freeze(task.assigneeIds.filter((id) => id !== memberId));
    task.updatedAt = timestamp(core);
    emit(core, 'task.updated', project.id, task.id, taskJson(task));
  }
}
