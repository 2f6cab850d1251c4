-- projmirror's mirror: the only DDL. Applied on open when PRAGMA user_version is 0; a mirror of
-- an older version migrates through src/store/migrations.ts. Columns declare the types BI tools
-- map (docs/schema.md): TEXT, INTEGER, REAL, BOOLEAN (0/1), DATE ('YYYY-MM-DD' text) and
-- TIMESTAMP (ISO-8601 UTC text with milliseconds, '2026-11-21T09:30:00.000Z').

-- One row per project mirrored.
CREATE TABLE projects (
  id               TEXT PRIMARY KEY,
  name             TEXT,                     -- typed columns are NULL when the service omits the field
  active           BOOLEAN CHECK (active IN (0, 1)),
  read_only_reason TEXT,
  data             TEXT NOT NULL,            -- the service's whole JSON object
  synced_at        TIMESTAMP NOT NULL        -- when this row was last written from the service
);

-- Exactly the tasks the service has now.
CREATE TABLE tasks (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       TEXT,
  start_date DATE,
  end_date   DATE,
  status     TEXT,
  progress   REAL,
  updated_at TIMESTAMP,                      -- the service's updatedAt in UTC, when it sends one
  data       TEXT NOT NULL,
  synced_at  TIMESTAMP NOT NULL
);
CREATE INDEX tasks_by_project ON tasks (project_id, status);

-- Who is assigned to each task, from assigneeIds.
CREATE TABLE task_assignees (
  task_id   TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  member_id TEXT NOT NULL,
  PRIMARY KEY (task_id, member_id)
) WITHOUT ROWID;
CREATE INDEX task_assignees_by_member ON task_assignees (member_id);
-- Assignees resolved to their project's roster: v_task_assignees.

-- Each project's roster, integration identities included.
CREATE TABLE members (
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id         TEXT NOT NULL,
  name       TEXT,
  kind       TEXT,                           -- person | integration
  data       TEXT NOT NULL,
  synced_at  TIMESTAMP NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

CREATE TABLE resources (
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id         TEXT NOT NULL,
  name       TEXT,
  data       TEXT NOT NULL,
  synced_at  TIMESTAMP NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

CREATE TABLE dependencies (
  project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id             TEXT NOT NULL,
  predecessor_id TEXT,
  successor_id   TEXT,
  type           TEXT,
  data           TEXT NOT NULL,
  synced_at      TIMESTAMP NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;
CREATE INDEX dependencies_by_predecessor ON dependencies (predecessor_id);
CREATE INDEX dependencies_by_successor ON dependencies (successor_id);

-- Append-only: every change the mirror observes in a task's name, dates, status, progress or
-- assignees, and its creation and deletion. Not tied to tasks by a foreign key: a deleted task's
-- history stays.
CREATE TABLE task_history (
  id          INTEGER PRIMARY KEY,
  task_id     TEXT NOT NULL,
  project_id  TEXT NOT NULL,
  observed_at TIMESTAMP NOT NULL,
  field       TEXT NOT NULL,                 -- created | deleted | name | start_date | end_date | status | progress | assignees
  old_value   TEXT,
  new_value   TEXT
);
CREATE INDEX task_history_by_task ON task_history (task_id, observed_at);
CREATE INDEX task_history_by_project ON task_history (project_id, observed_at);

-- Local edits waiting to be pushed. A plain INSERT of (op, project_id, target_id, body) is
-- enough: the idempotency key, state and times are defaulted here and never change.
CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY,
  op              TEXT NOT NULL,
  project_id      TEXT NOT NULL,
  target_id       TEXT,
  body            TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT NOT NULL UNIQUE DEFAULT (
    lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
    substr(lower(hex(randomblob(2))), 2) || '-' ||
    substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' ||
    lower(hex(randomblob(6)))
  ),
  state           TEXT NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'sending', 'done', 'failed', 'conflict', 'discarded')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  result          TEXT,                      -- the service's response body (JSON)
  request_body    TEXT,                      -- the exact bytes sent, fixed at the first attempt
  next_attempt_at TIMESTAMP,                 -- backoff: not sent again before this time
  created_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  token_label     TEXT,                      -- the token it is sent with: chosen by enqueue --token,
                                             -- else fixed at its first attempt
  base            TEXT,                      -- JSON: the mirror's values of the fields the item
                                             -- changes when it was queued (trigger outbox_base)
  conflict        TEXT                       -- JSON {fields, base, local, remote} while in conflict
);
CREATE INDEX outbox_queue ON outbox (state, project_id, id);

-- The base of an edit, recorded when it is queued, however it is queued (enqueue, or a plain
-- INSERT): {"record": "present", "values": {field: value, ...}} with the mirror's values of the
-- fields its body changes (for task.update the derived partner too: status with progress,
-- progress with status), or {"record": "absent"} when the mirror does not hold its target. Only
-- the ops that change fields of a record have one: task.update, task.set_assignees,
-- resource.update, dependency.set (the project's whole list). A body that is not JSON gets none
-- (the push fails the item). src/outbox/conflict.ts reads the same values back before sending.
CREATE TRIGGER outbox_base AFTER INSERT ON outbox
WHEN new.base IS NULL AND json_valid(new.body)
  AND new.op IN ('task.update', 'task.set_assignees', 'resource.update', 'dependency.set')
BEGIN
  UPDATE outbox SET base = CASE
    WHEN new.op = 'dependency.set' THEN json_object('record', 'present', 'values',
      json_object('dependencies', json((
        SELECT coalesce(json_group_array(json_object('predecessorId', d.predecessor_id,
          'successorId', d.successor_id, 'type', d.type)), '[]')
        FROM dependencies d WHERE d.project_id = new.project_id))))
    WHEN new.op = 'resource.update' THEN (
      SELECT CASE WHEN r.id IS NULL THEN json_object('record', 'absent')
        ELSE json_object('record', 'present', 'values', json((
          SELECT json_group_object(b.key, json(r.data -> b.key))
          FROM json_each(CASE WHEN json_type(new.body) = 'object' THEN new.body END) b)))
        END
      FROM (SELECT 1) LEFT JOIN resources r ON r.project_id = new.project_id AND r.id = new.target_id)
    ELSE (
      SELECT CASE WHEN t.id IS NULL THEN json_object('record', 'absent')
        ELSE json_object('record', 'present', 'values', json((
          SELECT json_group_object(f.field, json(t.data -> f.field))
          FROM (SELECT 'name' AS field UNION ALL SELECT 'startDate' UNION ALL SELECT 'endDate'
                UNION ALL SELECT 'status' UNION ALL SELECT 'progress'
                UNION ALL SELECT 'assigneeIds') f
          WHERE CASE WHEN new.op = 'task.set_assignees' THEN f.field = 'assigneeIds'
            WHEN json_type(new.body) <> 'object' THEN 0
            ELSE new.body -> f.field IS NOT NULL
              OR (f.field = 'status' AND new.body -> 'progress' IS NOT NULL)
              OR (f.field = 'progress' AND new.body -> 'status' IS NOT NULL) END)))
        END
      FROM (SELECT 1) LEFT JOIN tasks t ON t.project_id = new.project_id AND t.id = new.target_id)
    END
  WHERE id = new.id;
END;

-- Bookkeeping of full passes, one row per project; kept apart from the mirrored tables so that a
-- pass which finds nothing changed writes no mirrored row (it updates last_pass_at here only).
CREATE TABLE sync_state (
  project_id    TEXT PRIMARY KEY,
  backfill      TEXT NOT NULL DEFAULT 'pending'
                CHECK (backfill IN ('pending', 'in_progress', 'done')),
                                           -- 'done' once the project's first full pass committed;
                                           -- task_history is recorded from then on
  pages_read    INTEGER NOT NULL DEFAULT 0, -- pages of the backfill in hand, else of the last pass
  total_count   INTEGER,                    -- X-Total-Count seen by that pass
  last_pass_at  TIMESTAMP,                  -- end of the last consistent full pass
  last_change_at TIMESTAMP,                 -- last time a pass or an event changed a mirrored row
  project_etag  TEXT,                       -- ETag of get project, for its conditional read
  last_error    TEXT,                       -- one line: why the last pass failed; NULL after success
  last_error_at TIMESTAMP
);

-- The kept pages of list tasks: each page's ETag with the rows it stood for, so a 304 reuses them
-- and an interrupted pass resumes. `rows` is a JSON array with one task per line ("[a,\nb]"), so
-- it can be split into the rows' own texts without parsing; or, for a page a backfill inserted
-- whole, the JSON array of its task ids: its rows are then those tasks' `data` as the backfill
-- wrote them (task_page_refs, task_page_originals).
CREATE TABLE task_pages (
  project_id TEXT NOT NULL,
  page_size  INTEGER NOT NULL,
  page       INTEGER NOT NULL,
  etag       TEXT,
  row_count  INTEGER NOT NULL,
  read_at    TIMESTAMP NOT NULL,             -- when these rows were received (a 304 leaves it)
  rows       TEXT NOT NULL,                  -- last, and a rowid table: the ETag reads without it
  UNIQUE (project_id, page_size, page)
);

-- The kept pages that hold their tasks by reference (`rows` is their ids): a backfill's page whose
-- tasks it inserted, so that a cold sync writes each task's text once, not twice.
CREATE TABLE task_page_refs (
  project_id TEXT NOT NULL,
  page_size  INTEGER NOT NULL,
  page       INTEGER NOT NULL,
  PRIMARY KEY (project_id, page_size, page)
) WITHOUT ROWID;

-- A task's text as a page kept by reference holds it, saved by the first write that changes or
-- deletes the task while its project has such a page (the triggers below): the page's rows are
-- each task's text here, else in `tasks`. Dropped with the project's last page kept by reference.
CREATE TABLE task_page_originals (
  project_id TEXT NOT NULL,                  -- the task's project when its text was saved
  task_id    TEXT NOT NULL,
  data       TEXT NOT NULL,
  PRIMARY KEY (project_id, task_id)          -- no other index: one page written a save
) WITHOUT ROWID;

-- Small named values the daemon keeps across restarts (learned quota, the daily plan).
CREATE TABLE daemon_state (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TIMESTAMP NOT NULL
) WITHOUT ROWID;

-- Each polled item's change-rate evidence (src/budget/change-rate.ts), kept so that a restart
-- does not forget where the changes are. Shared by every daemon of one mirror: a project that
-- changes hands keeps its estimate.
CREATE TABLE change_rates (
  item       TEXT PRIMARY KEY,
  state      TEXT NOT NULL,
  looked_at  TIMESTAMP,
  updated_at TIMESTAMP NOT NULL
) WITHOUT ROWID;

-- The time zone of the views' "today" (--timezone): its UTC offset from each instant on, for the
-- years ahead, written by the commands that write the mirror. No row: today is the UTC day.
CREATE TABLE timezone_offsets (
  starts_at      TIMESTAMP PRIMARY KEY,      -- this offset holds from here to the next row's
  zone           TEXT NOT NULL,              -- IANA name, such as Europe/Berlin
  offset_minutes INTEGER NOT NULL            -- local time minus UTC
) WITHOUT ROWID;

-- Holds no row. Its columns lend their declared types to view columns computed by expressions,
-- which SQLite leaves untyped: `(SELECT <expression> UNION ALL SELECT date FROM column_types)`
-- has the expression's value and the declared type DATE, for every reader since SQLite 3.25 (a
-- scalar subquery takes the declared type of its last arm's column). A CAST is no substitute: a
-- CAST to DATE turns '2026-11-21' into the number 2026, and readers before SQLite 3.41 see no type
-- at all on a CAST to INTEGER, REAL or TEXT.
CREATE TABLE column_types (
  text      TEXT,
  integer   INTEGER,
  real      REAL,
  boolean   BOOLEAN,
  date      DATE,
  timestamp TIMESTAMP
);

-- Every field seen in the service's JSON (`data`) of each kind of record, once per kind of value
-- seen in it: the columns of the wide views (v_tasks_all, ...). Kept in the transaction that
-- writes a row by triggers on the mirrored tables; both the triggers and the wide views are
-- generated from this table by src/store/wide-views.ts (after each pass that saw a new field).
CREATE TABLE data_fields (
  record_kind   TEXT NOT NULL,               -- projects | tasks | members | resources | dependencies
  field         TEXT NOT NULL,               -- the JSON key
  value_type    TEXT NOT NULL,               -- null | boolean | integer | real | date | timestamp | text | json
  first_seen_at TIMESTAMP NOT NULL,          -- synced_at of the first row seen with it
  PRIMARY KEY (record_kind, field, value_type)
) WITHOUT ROWID;

-- Full-text search over task names (FTS5; query with `tasks_fts MATCH 'word'`, join tasks on
-- rowid). It indexes the `name` column of `tasks` in place (external content: no copy of the
-- names), kept in step by triggers inside the transactions that write the tasks. The tasks of a
-- project whose first full pass (its backfill) has not completed are left out, and indexed in
-- one statement when it completes: a backfill's rows are found once the backfill is done, and
-- it costs one bulk insert instead of one per row. No table of each name's token count
-- (`columnsize = 0`): `rank` counts a name's tokens when it ranks a match, which for a name is
-- cheap, while keeping the counts was a row a task to write (a third of the index's cost).
CREATE VIRTUAL TABLE tasks_fts USING fts5(
  name, content = 'tasks', content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 2',
  columnsize = 0
);
CREATE TRIGGER tasks_fts_after_insert AFTER INSERT ON tasks
WHEN NOT EXISTS (
  SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done'
) BEGIN
  INSERT INTO tasks_fts (rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER tasks_fts_after_delete AFTER DELETE ON tasks
WHEN NOT EXISTS (
  SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done'
) BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
CREATE TRIGGER tasks_fts_after_update AFTER UPDATE OF name, project_id ON tasks
WHEN new.name IS NOT old.name OR new.project_id IS NOT old.project_id BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name) SELECT 'delete', old.rowid, old.name
  WHERE NOT EXISTS (
    SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done'
  );
  INSERT INTO tasks_fts (rowid, name) SELECT new.rowid, new.name
  WHERE NOT EXISTS (
    SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done'
  );
END;
-- A project's backfill completes (or its state comes or goes): its tasks join or leave the index.
CREATE TRIGGER tasks_fts_backfill_done AFTER UPDATE OF backfill ON sync_state
WHEN old.backfill <> 'done' AND new.backfill = 'done' BEGIN
  INSERT INTO tasks_fts (rowid, name) SELECT rowid, name FROM tasks WHERE project_id = new.project_id;
END;
CREATE TRIGGER tasks_fts_backfill_undone AFTER UPDATE OF backfill ON sync_state
WHEN old.backfill = 'done' AND new.backfill <> 'done' BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name)
  SELECT 'delete', rowid, name FROM tasks WHERE project_id = new.project_id;
END;
CREATE TRIGGER tasks_fts_backfill_begun AFTER INSERT ON sync_state
WHEN new.backfill <> 'done' BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name)
  SELECT 'delete', rowid, name FROM tasks WHERE project_id = new.project_id;
END;
CREATE TRIGGER tasks_fts_backfill_dropped AFTER DELETE ON sync_state
WHEN old.backfill <> 'done' BEGIN
  INSERT INTO tasks_fts (rowid, name) SELECT rowid, name FROM tasks WHERE project_id = old.project_id;
END;

-- A task that a kept page holds by reference changes or goes: its text as the page has it is
-- saved first (the first such write only: later ones find it there).
CREATE TRIGGER tasks_page_original_on_update AFTER UPDATE OF data, project_id ON tasks
WHEN EXISTS (SELECT 1 FROM task_page_refs r WHERE r.project_id = old.project_id) BEGIN
  INSERT INTO task_page_originals (project_id, task_id, data)
  VALUES (old.project_id, old.id, old.data) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER tasks_page_original_on_delete AFTER DELETE ON tasks
WHEN EXISTS (SELECT 1 FROM task_page_refs r WHERE r.project_id = old.project_id) BEGIN
  INSERT INTO task_page_originals (project_id, task_id, data)
  VALUES (old.project_id, old.id, old.data) ON CONFLICT DO NOTHING;
END;

-- The change feed (docs/changes.md): one row per insert, update or delete of a project, task,
-- member, resource, dependency or assignment, written by the triggers below in the transaction
-- that writes the row, whichever code writes it. `seq` is the rowid and never reused
-- (AUTOINCREMENT: a pruned or coalesced row leaves a gap): SQLite's one writer commits in seq
-- order. A write that changes no `data` writes no row. The rows of a project whose first full pass
-- (its backfill) is under way are left out, and one `reload` row is written when it completes: a
-- consumer reads the project from the tables then. A delete takes what hangs on it: a project's
-- delete stands for its rows', a task's for its assignments' (their cascades write no row).
CREATE TABLE changes (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  committed_at TIMESTAMP NOT NULL,           -- when the change was written
  batch        INTEGER NOT NULL,             -- one value per transaction that wrote changes
  entity       TEXT NOT NULL,                -- project | task | member | resource | dependency | assignment
  project_id   TEXT NOT NULL,
  entity_id    TEXT NOT NULL,                -- for an assignment, task_id:member_id
  op           TEXT NOT NULL,                -- insert | update | delete | reload
  data         TEXT,                         -- the row's data after the change; NULL for delete, reload
  fields       TEXT                          -- update: JSON array of the typed columns that changed
);
-- Finds an assignment's delete in the transaction in hand, which its re-insert takes back.
CREATE INDEX changes_assignment_deletes ON changes (entity_id) WHERE entity = 'assignment' AND op = 'delete';

-- The batch of the transaction in hand (`open`), taken by its first change row from the counter
-- `last`, and set back to NULL by the store's connection as the transaction commits
-- (src/store/sqlite-connection.ts). One row, always.
CREATE TABLE change_batch (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  last INTEGER NOT NULL DEFAULT 0,
  open INTEGER
);
INSERT INTO change_batch (id) VALUES (1);

-- Projects, tasks, members, resources and dependencies: an insert, an update that changes `data`
-- (or a task's project), a delete. A project's delete is written even during its backfill: a
-- consumer may hold the project's row, written before the backfill began.
CREATE TRIGGER projects_changes_insert AFTER INSERT ON projects
WHEN NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'project', new.id, new.id, 'insert', new.data, NULL);
END;
CREATE TRIGGER projects_changes_update AFTER UPDATE ON projects
WHEN (new.data IS NOT old.data)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'project', new.id, new.id, 'update', new.data, '[' || ltrim(
    CASE WHEN new.name IS NOT old.name THEN ',"name"' ELSE '' END ||
    CASE WHEN new.active IS NOT old.active THEN ',"active"' ELSE '' END ||
    CASE WHEN new.read_only_reason IS NOT old.read_only_reason THEN ',"read_only_reason"' ELSE '' END, ',') || ']');
END;
CREATE TRIGGER projects_changes_delete AFTER DELETE ON projects BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'project', old.id, old.id, 'delete', NULL, NULL);
END;
CREATE TRIGGER tasks_changes_insert AFTER INSERT ON tasks
WHEN NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'task', new.project_id, new.id, 'insert', new.data, NULL);
END;
CREATE TRIGGER tasks_changes_update AFTER UPDATE ON tasks
WHEN (new.data IS NOT old.data OR new.project_id IS NOT old.project_id)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'task', new.project_id, new.id, 'update', new.data, '[' || ltrim(
    CASE WHEN new.project_id IS NOT old.project_id THEN ',"project_id"' ELSE '' END ||
    CASE WHEN new.name IS NOT old.name THEN ',"name"' ELSE '' END ||
    CASE WHEN new.start_date IS NOT old.start_date THEN ',"start_date"' ELSE '' END ||
    CASE WHEN new.end_date IS NOT old.end_date THEN ',"end_date"' ELSE '' END ||
    CASE WHEN new.status IS NOT old.status THEN ',"status"' ELSE '' END ||
    CASE WHEN new.progress IS NOT old.progress THEN ',"progress"' ELSE '' END ||
    CASE WHEN new.updated_at IS NOT old.updated_at THEN ',"updated_at"' ELSE '' END, ',') || ']');
END;
CREATE TRIGGER tasks_changes_delete AFTER DELETE ON tasks
WHEN EXISTS (SELECT 1 FROM projects p WHERE p.id = old.project_id)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'task', old.project_id, old.id, 'delete', NULL, NULL);
END;
CREATE TRIGGER members_changes_insert AFTER INSERT ON members
WHEN NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'member', new.project_id, new.id, 'insert', new.data, NULL);
END;
CREATE TRIGGER members_changes_update AFTER UPDATE ON members
WHEN (new.data IS NOT old.data)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'member', new.project_id, new.id, 'update', new.data, '[' || ltrim(
    CASE WHEN new.name IS NOT old.name THEN ',"name"' ELSE '' END ||
    CASE WHEN new.kind IS NOT old.kind THEN ',"kind"' ELSE '' END, ',') || ']');
END;
CREATE TRIGGER members_changes_delete AFTER DELETE ON members
WHEN EXISTS (SELECT 1 FROM projects p WHERE p.id = old.project_id)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'member', old.project_id, old.id, 'delete', NULL, NULL);
END;
CREATE TRIGGER resources_changes_insert AFTER INSERT ON resources
WHEN NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'resource', new.project_id, new.id, 'insert', new.data, NULL);
END;
CREATE TRIGGER resources_changes_update AFTER UPDATE ON resources
WHEN (new.data IS NOT old.data)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'resource', new.project_id, new.id, 'update', new.data, '[' || ltrim(
    CASE WHEN new.name IS NOT old.name THEN ',"name"' ELSE '' END, ',') || ']');
END;
CREATE TRIGGER resources_changes_delete AFTER DELETE ON resources
WHEN EXISTS (SELECT 1 FROM projects p WHERE p.id = old.project_id)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'resource', old.project_id, old.id, 'delete', NULL, NULL);
END;
CREATE TRIGGER dependencies_changes_insert AFTER INSERT ON dependencies
WHEN NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'dependency', new.project_id, new.id, 'insert', new.data, NULL);
END;
CREATE TRIGGER dependencies_changes_update AFTER UPDATE ON dependencies
WHEN (new.data IS NOT old.data)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = new.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'dependency', new.project_id, new.id, 'update', new.data, '[' || ltrim(
    CASE WHEN new.predecessor_id IS NOT old.predecessor_id THEN ',"predecessor_id"' ELSE '' END ||
    CASE WHEN new.successor_id IS NOT old.successor_id THEN ',"successor_id"' ELSE '' END ||
    CASE WHEN new.type IS NOT old.type THEN ',"type"' ELSE '' END, ',') || ']');
END;
CREATE TRIGGER dependencies_changes_delete AFTER DELETE ON dependencies
WHEN EXISTS (SELECT 1 FROM projects p WHERE p.id = old.project_id)
  AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = old.project_id AND s.backfill <> 'done') BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'dependency', old.project_id, old.id, 'delete', NULL, NULL);
END;

-- An assignment has no data of its own: its `data` is {"task_id": ..., "member_id": ...}. Its
-- project is its task's. A re-insert of an assignment deleted in the same transaction (a task's
-- assignees are written by clearing and adding them) takes the delete back instead.
CREATE TRIGGER task_assignees_changes_insert AFTER INSERT ON task_assignees
WHEN NOT EXISTS (
  SELECT 1 FROM tasks t JOIN sync_state s ON s.project_id = t.project_id
  WHERE t.id = new.task_id AND s.backfill <> 'done'
) BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'assignment',
    t.project_id, new.task_id || ':' || new.member_id, 'insert',
    json_object('task_id', new.task_id, 'member_id', new.member_id), NULL
  FROM tasks t WHERE t.id = new.task_id AND NOT EXISTS (
    SELECT 1 FROM changes c WHERE c.entity = 'assignment' AND c.op = 'delete'
      AND c.entity_id = new.task_id || ':' || new.member_id
      AND c.batch = (SELECT open FROM change_batch));
  DELETE FROM changes WHERE entity = 'assignment' AND op = 'delete'
    AND entity_id = new.task_id || ':' || new.member_id AND batch = (SELECT open FROM change_batch);
END;
CREATE TRIGGER task_assignees_changes_delete AFTER DELETE ON task_assignees
WHEN EXISTS (SELECT 1 FROM tasks t WHERE t.id = old.task_id)
  AND NOT EXISTS (
  SELECT 1 FROM tasks t JOIN sync_state s ON s.project_id = t.project_id
  WHERE t.id = old.task_id AND s.backfill <> 'done'
) BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'assignment',
    t.project_id, old.task_id || ':' || old.member_id, 'delete', NULL, NULL
  FROM tasks t WHERE t.id = old.task_id;
END;
-- A project's backfill completes: one `reload` row for it.
CREATE TRIGGER sync_state_changes_reload AFTER UPDATE OF backfill ON sync_state
WHEN old.backfill <> 'done' AND new.backfill = 'done' BEGIN
  UPDATE change_batch SET open = last + 1, last = last + 1 WHERE open IS NULL;
  INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data, fields)
  VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), (SELECT open FROM change_batch), 'project',
    new.project_id, new.project_id, 'reload', NULL, NULL);
END;

-- Reporting views and their indexes, for BI tools and hand-written SQL (docs/schema.md).
-- "Today" is v_today.day: the calendar day now in the mirror's time zone (timezone_offsets; UTC
-- without one), and days of history are calendar days at its current offset. A task is done
-- when its status is 'Done'; it is overdue when it is not done and its end_date is before today.
-- Every view column has a declared type (column_types above for BOOLEAN and DATE). The views
-- are SQL that DuckDB binds too (its sqlite extension binds a view's SQL itself): no `IS 'x'`,
-- every LEFT JOIN with an ON, day arithmetic on strftime's year and day of year (julianday is
-- SQLite's alone), CASE for SQLite's two-argument min and max (aggregates in DuckDB), and no
-- integer division (a float division in DuckDB). Readers need SQLite 3.39 (IS DISTINCT FROM).
-- A date's day number (0001-01-01 is 1, a Monday) is 365 * p + p / 4 - p / 100 + p / 400 + j,
-- p its year minus one and j its day of year (strftime '%Y' and '%j'), each a / b written
-- (a - a % b) / b, exact in both engines; the CTEs named *_era, *_shift, *_yoe, *_doy, *_mp and
-- *_dates turn day numbers back into dates (H. Hinnant's civil_from_days).

-- Serves v_overdue_tasks and v_overdue_assignments, and any query of open tasks by end date
-- written with `status IS DISTINCT FROM 'Done'` (SQLite's `IS NOT`).
CREATE INDEX tasks_open_by_end_date ON tasks (end_date) WHERE status IS NOT 'Done';
-- Serves v_task_status_daily: the creations, deletions and status changes of each task in order.
CREATE INDEX task_history_by_field ON task_history (field, task_id);


-- One row: today's date in the mirror's time zone, the zone, and its offset from UTC now: now's
-- UTC day number, moved a day when the offset crosses midnight, turned back into a date. Now is
-- read with strftime alone, which gives UTC in SQLite and in DuckDB whatever its TimeZone.
CREATE VIEW v_today AS
WITH
zone AS (
  SELECT coalesce(o.zone, 'UTC') AS zone, coalesce(o.offset_minutes, 0) AS offset_minutes
  FROM (SELECT 1 AS one) AS one
  LEFT JOIN (
    SELECT zone, offset_minutes FROM timezone_offsets
    WHERE strftime('%Y-%m-%dT%H:%M:%S', starts_at)
      <= strftime('%Y-%m-%dT%H:%M:%S', CURRENT_TIMESTAMP)
    ORDER BY starts_at DESC LIMIT 1
  ) AS o ON 1 = 1
),
now_utc AS (
  SELECT zone.*,
    CAST(strftime('%H', CURRENT_TIMESTAMP) AS INTEGER) * 60
      + CAST(strftime('%M', CURRENT_TIMESTAMP) AS INTEGER) + offset_minutes AS minute,
    CAST(strftime('%Y', CURRENT_TIMESTAMP) AS INTEGER) - 1 AS u_p,
    CAST(strftime('%j', CURRENT_TIMESTAMP) AS INTEGER) AS u_j
  FROM zone
),
today_era AS (
  SELECT s.*, CAST((s.n + 305) % 146097 AS BIGINT) AS doe,
    CAST(((s.n + 305) - (s.n + 305) % 146097) / 146097 AS BIGINT) AS era
  FROM (SELECT zone, offset_minutes, CAST(365 * u.u_p + ((u.u_p) - (u.u_p) % 4) / 4 - ((u.u_p) - (u.u_p) % 100) / 100 + ((u.u_p) - (u.u_p) % 400) / 400 + u.u_j AS BIGINT) + CASE WHEN minute < 0 THEN -1 WHEN minute >= 1440 THEN 1 ELSE 0 END AS n FROM now_utc u) s
),
today_shift AS (
  SELECT e.*, CAST(e.doe - ((e.doe) - (e.doe) % 1460) / 1460 + ((e.doe) - (e.doe) % 36524) / 36524 - ((e.doe) - (e.doe) % 146096) / 146096 AS BIGINT)
    AS shifted
  FROM today_era e
),
today_yoe AS (
  SELECT e.*, CAST(((e.shifted) - (e.shifted) % 365) / 365 AS BIGINT) AS yoe FROM today_shift e
),
today_doy AS (
  SELECT y.*, CAST(y.doe - (365 * y.yoe + ((y.yoe) - (y.yoe) % 4) / 4 - ((y.yoe) - (y.yoe) % 100) / 100) AS BIGINT) AS doy
  FROM today_yoe y
),
today_mp AS (
  SELECT d.*, CAST(((5 * d.doy + 2) - (5 * d.doy + 2) % 153) / 153 AS BIGINT) AS mp FROM today_doy d
),
today_dates AS (
  SELECT m.*, date(printf('%04d-%02d-%02d',
      CAST(m.yoe + m.era * 400 + CASE WHEN m.mp >= 10 THEN 1 ELSE 0 END AS BIGINT),
      CAST(CASE WHEN m.mp < 10 THEN m.mp + 3 ELSE m.mp - 9 END AS BIGINT),
      CAST(m.doy - ((153 * m.mp + 2) - (153 * m.mp + 2) % 5) / 5 + 1 AS BIGINT))) AS day
  FROM today_mp m
)
SELECT
  (SELECT day UNION ALL SELECT date FROM column_types) AS day,
  (SELECT zone UNION ALL SELECT text FROM column_types) AS timezone,
  (SELECT CAST(offset_minutes AS BIGINT) UNION ALL SELECT integer FROM column_types)
                                                     AS utc_offset_minutes
FROM today_dates;

-- One row per task: its project's name, its assignees (as JSON arrays and as a display string),
-- and whether it is done or overdue.
CREATE VIEW v_tasks AS
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  t.name                                             AS task_name,
  t.start_date                                       AS start_date,
  t.end_date                                         AS end_date,
  t.status                                           AS status,
  t.progress                                         AS progress,
  (SELECT coalesce(json_group_array(member_id), json_array()) FROM (
     SELECT a.member_id FROM task_assignees a WHERE a.task_id = t.id ORDER BY a.member_id
   ) UNION ALL SELECT text FROM column_types)        AS assignee_ids,
  (SELECT coalesce(json_group_array(name), json_array()) FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     JOIN tasks own ON own.id = a.task_id
     LEFT JOIN members m ON m.project_id = own.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignee_names,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     JOIN tasks own ON own.id = a.task_id
     LEFT JOIN members m ON m.project_id = own.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignees,
  (SELECT t.status IS NOT DISTINCT FROM 'Done' UNION ALL SELECT boolean FROM column_types) AS is_done,
  (SELECT coalesce(t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today), FALSE)
   UNION ALL SELECT boolean FROM column_types)       AS is_overdue,
  (SELECT t.end_dn - t.start_dn + 1 UNION ALL SELECT integer FROM column_types)       AS duration_days,
  t.updated_at                                       AS updated_at,
  t.synced_at                                        AS synced_at
FROM (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t
JOIN projects p ON p.id = t.project_id;

-- v_tasks as it will be once the outbox drains (issue 21): each task with its pending and sending
-- task.update and task.set_assignees items applied in queue order, a later item's field winning,
-- with the derivation the service makes (a progress sent alone sets the status: 0 NotStarted,
-- 100 Done, else InProgress; Done or NotStarted sent alone set progress 100 or 0, InProgress sent
-- alone keeps the progress within 1..99). A value the push would refuse (a name that is not a
-- string, a date that is not a calendar date, a progress outside 0..100) is not applied.
-- pending_fields names the columns the queue sets, as a JSON array; pending_items counts the
-- items. Items in conflict, done, failed or discarded are not applied; nor are creates, deletes.
-- Values are read as JSON text first (`->`, whose first character tells the type), so that no
-- cast ever meets a value it cannot convert: DuckDB would fail the query where SQLite gives NULL.
CREATE VIEW v_tasks_pending AS
WITH
queued AS (
  SELECT o.id, o.project_id, o.target_id, o.op,
    CASE WHEN json_valid(o.body) THEN o.body END AS body
  FROM outbox o
  WHERE o.state IN ('pending', 'sending') AND o.op IN ('task.update', 'task.set_assignees')
    AND o.target_id IS NOT NULL
),
as_json AS (
  SELECT q.*,
    CASE WHEN q.op = 'task.update' THEN q.body -> '$.name' END AS name_j,
    CASE WHEN q.op = 'task.update' THEN q.body -> '$.startDate' END AS start_j,
    CASE WHEN q.op = 'task.update' THEN q.body -> '$.endDate' END AS end_j,
    CASE WHEN q.op = 'task.update' THEN q.body -> '$.status' END AS status_j,
    CASE WHEN q.op = 'task.update' THEN q.body -> '$.progress' END AS progress_j,
    q.body -> '$.assigneeIds' AS assignees_j
  FROM queued q
),
checked AS (
  SELECT j.id, j.project_id, j.target_id,
    CASE WHEN substr(j.name_j, 1, 1) = '"' AND trim(j.body ->> '$.name') <> ''
      THEN j.body ->> '$.name' END AS name,
    CASE WHEN j.start_j GLOB '"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"'
      THEN j.body ->> '$.startDate' END AS start_text,
    CASE WHEN j.end_j GLOB '"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"'
      THEN j.body ->> '$.endDate' END AS end_text,
    CASE WHEN substr(j.status_j, 1, 1) = '"' AND trim(j.body ->> '$.status') <> ''
      THEN j.body ->> '$.status' END AS status,
    CASE WHEN substr(j.progress_j, 1, 1) IN ('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9')
      THEN CASE WHEN CAST(j.body ->> '$.progress' AS DOUBLE) BETWEEN 0 AND 100
        THEN CAST(j.body ->> '$.progress' AS DOUBLE) END END AS progress,
    CASE WHEN substr(j.assignees_j, 1, 1) = '[' THEN j.assignees_j END AS assignee_ids
  FROM as_json j
),
-- A date applies when it is a calendar date (year 0000 and 2026-02-30 are not).
dated AS (
  SELECT c.*,
    CAST(substr(c.start_text, 1, 4) AS INTEGER) AS s_y, CAST(substr(c.start_text, 6, 2) AS INTEGER) AS s_m,
    CAST(substr(c.start_text, 9, 2) AS INTEGER) AS s_d,
    CAST(substr(c.end_text, 1, 4) AS INTEGER) AS e_y, CAST(substr(c.end_text, 6, 2) AS INTEGER) AS e_m,
    CAST(substr(c.end_text, 9, 2) AS INTEGER) AS e_d
  FROM checked c
),
items AS (
  SELECT d.id, d.project_id, d.target_id, d.name, d.assignee_ids,
    CASE WHEN d.s_y > 0 AND d.s_m BETWEEN 1 AND 12 AND d.s_d BETWEEN 1 AND CASE
        WHEN d.s_m = 2 THEN CASE WHEN d.s_y % 4 = 0 AND (d.s_y % 100 <> 0 OR d.s_y % 400 = 0) THEN 29 ELSE 28 END
        WHEN d.s_m IN (4, 6, 9, 11) THEN 30 ELSE 31 END
      THEN date(d.start_text) END AS start_date,
    CASE WHEN d.e_y > 0 AND d.e_m BETWEEN 1 AND 12 AND d.e_d BETWEEN 1 AND CASE
        WHEN d.e_m = 2 THEN CASE WHEN d.e_y % 4 = 0 AND (d.e_y % 100 <> 0 OR d.e_y % 400 = 0) THEN 29 ELSE 28 END
        WHEN d.e_m IN (4, 6, 9, 11) THEN 30 ELSE 31 END
      THEN date(d.end_text) END AS end_date,
    coalesce(d.status, CASE WHEN d.progress <= 0 THEN 'NotStarted' WHEN d.progress >= 100 THEN 'Done'
      WHEN d.progress IS NOT NULL THEN 'InProgress' END) AS status,
    coalesce(d.progress, CASE d.status WHEN 'Done' THEN 100.0 WHEN 'NotStarted' THEN 0.0 END) AS progress,
    CASE WHEN d.progress IS NULL AND d.status = 'InProgress' THEN 1 ELSE 0 END AS keeps_progress
  FROM dated d
),
latest AS (
  SELECT i.*,
    max(CASE WHEN i.name IS NOT NULL THEN i.id END) OVER w AS name_id,
    max(CASE WHEN i.start_date IS NOT NULL THEN i.id END) OVER w AS start_id,
    max(CASE WHEN i.end_date IS NOT NULL THEN i.id END) OVER w AS end_id,
    max(CASE WHEN i.status IS NOT NULL THEN i.id END) OVER w AS status_id,
    max(CASE WHEN i.progress IS NOT NULL THEN i.id END) OVER w AS progress_id,
    max(CASE WHEN i.progress IS NOT NULL OR i.keeps_progress = 1 THEN i.id END) OVER w AS touch_id,
    max(CASE WHEN i.assignee_ids IS NOT NULL THEN i.id END) OVER w AS assignees_id
  FROM items i
  WINDOW w AS (PARTITION BY i.project_id, i.target_id)
),
pending AS (
  SELECT l.project_id, l.target_id,
    count(*) AS items,
    max(CASE WHEN l.id = l.name_id THEN l.name END) AS name,
    max(CASE WHEN l.id = l.start_id THEN l.start_date END) AS start_date,
    max(CASE WHEN l.id = l.end_id THEN l.end_date END) AS end_date,
    max(CASE WHEN l.id = l.status_id THEN l.status END) AS status,
    max(CASE WHEN l.id = l.progress_id THEN l.progress END) AS progress,
    max(l.touch_id) AS touch_id,
    max(l.progress_id) AS progress_id,
    max(CASE WHEN l.id = l.assignees_id THEN l.assignee_ids END) AS assignee_ids
  FROM latest l
  GROUP BY l.project_id, l.target_id
),
applied AS (
  SELECT x.id, x.project_id, x.updated_at, x.synced_at,
    coalesce(q.items, 0) AS pending_items,
    CASE WHEN q.name IS NULL THEN x.name ELSE q.name END AS name,
    CASE WHEN q.start_date IS NULL THEN x.start_date ELSE q.start_date END AS start_date,
    CASE WHEN q.end_date IS NULL THEN x.end_date ELSE q.end_date END AS end_date,
    CASE WHEN q.status IS NULL THEN x.status ELSE q.status END AS status,
    CASE
      WHEN q.touch_id IS NULL THEN x.progress
      WHEN q.touch_id = q.progress_id THEN q.progress
      WHEN coalesce(q.progress, x.progress) < 1 THEN 1.0
      WHEN coalesce(q.progress, x.progress) > 99 THEN 99.0
      ELSE coalesce(q.progress, x.progress)
    END AS progress,
    q.assignee_ids AS pending_assignees,
    '[' || substr(
      CASE WHEN q.name IS NULL THEN '' ELSE ',"task_name"' END
      || CASE WHEN q.start_date IS NULL THEN '' ELSE ',"start_date"' END
      || CASE WHEN q.end_date IS NULL THEN '' ELSE ',"end_date"' END
      || CASE WHEN q.status IS NULL THEN '' ELSE ',"status"' END
      || CASE WHEN q.touch_id IS NULL THEN '' ELSE ',"progress"' END
      || CASE WHEN q.assignee_ids IS NULL THEN '' ELSE ',"assignee_ids"' END, 2) || ']' AS pending_fields
  FROM tasks x
  LEFT JOIN pending q ON q.project_id = x.project_id AND q.target_id = x.id
),
-- Who will be assigned: the pending list where there is one, else the mirror's.
assigned AS (
  SELECT x.project_id, a.task_id, a.member_id FROM task_assignees a
  JOIN applied x ON x.id = a.task_id
  WHERE x.pending_assignees IS NULL
  UNION
  SELECT x.project_id, x.id AS task_id, x.pending_assignees ->> e.fullkey AS member_id
  FROM applied x, json_each(x.pending_assignees) e
  WHERE x.pending_assignees IS NOT NULL
)
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  (SELECT t.name UNION ALL SELECT text FROM column_types) AS task_name,
  (SELECT t.start_date UNION ALL SELECT date FROM column_types) AS start_date,
  (SELECT t.end_date UNION ALL SELECT date FROM column_types) AS end_date,
  (SELECT t.status UNION ALL SELECT text FROM column_types) AS status,
  (SELECT t.progress UNION ALL SELECT real FROM column_types) AS progress,
  (SELECT coalesce(json_group_array(member_id), json_array()) FROM (
     SELECT a.member_id FROM assigned a WHERE a.task_id = t.id ORDER BY a.member_id
   ) UNION ALL SELECT text FROM column_types)        AS assignee_ids,
  (SELECT coalesce(json_group_array(name), json_array()) FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM assigned a
     LEFT JOIN members m ON m.project_id = a.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignee_names,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM assigned a
     LEFT JOIN members m ON m.project_id = a.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignees,
  (SELECT t.status IS NOT DISTINCT FROM 'Done' UNION ALL SELECT boolean FROM column_types) AS is_done,
  (SELECT coalesce(t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today), FALSE)
   UNION ALL SELECT boolean FROM column_types)       AS is_overdue,
  (SELECT t.end_dn - t.start_dn + 1 UNION ALL SELECT integer FROM column_types)       AS duration_days,
  t.updated_at                                       AS updated_at,
  t.synced_at                                        AS synced_at,
  (SELECT t.pending_fields UNION ALL SELECT text FROM column_types) AS pending_fields,
  (SELECT t.pending_items UNION ALL SELECT integer FROM column_types) AS pending_items
FROM (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
      CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
      CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM applied x
  ) y
) t
JOIN projects p ON p.id = t.project_id;

-- One row per task assignee, resolved to its project's roster.
CREATE VIEW v_task_assignees AS
SELECT
  a.task_id                                          AS task_id,
  t.project_id                                       AS project_id,
  a.member_id                                        AS member_id,
  m.name                                             AS member_name,
  m.kind                                             AS member_kind,
  (SELECT m.id IS NOT NULL UNION ALL SELECT boolean FROM column_types) AS on_roster
FROM task_assignees a
JOIN tasks t ON t.id = a.task_id
LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id;

-- One row per project: tasks by status, percent done, average progress and overdue count.
CREATE VIEW v_project_progress AS
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  p.active                                           AS active,
  p.read_only_reason                                 AS read_only_reason,
  (SELECT coalesce(c.tasks, 0) UNION ALL SELECT integer FROM column_types) AS tasks,
  (SELECT coalesce(c.not_started, 0) UNION ALL SELECT integer FROM column_types) AS not_started,
  (SELECT coalesce(c.in_progress, 0) UNION ALL SELECT integer FROM column_types) AS in_progress,
  (SELECT coalesce(c.done, 0) UNION ALL SELECT integer FROM column_types) AS done,
  (SELECT coalesce(c.other_status, 0) UNION ALL SELECT integer FROM column_types) AS other_status,
  (SELECT round(100.0 * c.done / c.tasks, 1) UNION ALL SELECT real FROM column_types)
                                                     AS percent_done,
  (SELECT round(c.avg_progress, 1) UNION ALL SELECT real FROM column_types) AS avg_progress,
  (SELECT coalesce(c.overdue, 0) UNION ALL SELECT integer FROM column_types) AS overdue,
  s.last_pass_at                                     AS last_sync_at
FROM projects p
LEFT JOIN (
  SELECT
    t.project_id,
    count(*)                                         AS tasks,
    count(CASE WHEN t.status = 'NotStarted' THEN 1 END)            AS not_started,
    count(CASE WHEN t.status = 'InProgress' THEN 1 END)            AS in_progress,
    count(CASE WHEN t.status = 'Done' THEN 1 END)                  AS done,
    count(CASE WHEN t.status IS NULL OR t.status NOT IN ('NotStarted', 'InProgress', 'Done') THEN 1 END)
                                                     AS other_status,
    avg(t.progress)                                  AS avg_progress,
    count(CASE WHEN t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today) THEN 1 END) AS overdue
  FROM tasks t GROUP BY t.project_id
) c ON c.project_id = p.id
LEFT JOIN sync_state s ON s.project_id = p.id;

-- One row per overdue task: not done, end date before today; how many days late, and who has it.
CREATE VIEW v_overdue_tasks AS
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  t.name                                             AS task_name,
  t.end_date                                         AS end_date,
  (SELECT (SELECT CAST(365 * d.d_p + ((d.d_p) - (d.d_p) % 4) / 4 - ((d.d_p) - (d.d_p) % 100) / 100 + ((d.d_p) - (d.d_p) % 400) / 400 + d.d_j AS BIGINT) FROM (SELECT CAST(strftime('%Y', date((SELECT day FROM v_today))) AS INTEGER) - 1 AS d_p,
    CAST(strftime('%j', date((SELECT day FROM v_today))) AS INTEGER) AS d_j) d) - t.end_dn
   UNION ALL SELECT integer FROM column_types)       AS days_overdue,
  t.status                                           AS status,
  t.progress                                         AS progress,
  (SELECT coalesce(json_group_array(member_id), json_array()) FROM (
     SELECT a.member_id FROM task_assignees a WHERE a.task_id = t.id ORDER BY a.member_id
   ) UNION ALL SELECT text FROM column_types)        AS assignee_ids,
  (SELECT coalesce(json_group_array(name), json_array()) FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     JOIN tasks own ON own.id = a.task_id
     LEFT JOIN members m ON m.project_id = own.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignee_names,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     JOIN tasks own ON own.id = a.task_id
     LEFT JOIN members m ON m.project_id = own.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignees
FROM (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t
JOIN projects p ON p.id = t.project_id
WHERE t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today);

-- One row per overdue task and assignee (one with a NULL member for an unassigned task), to
-- filter overdue work by person.
CREATE VIEW v_overdue_assignments AS
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  t.name                                             AS task_name,
  t.end_date                                         AS end_date,
  (SELECT (SELECT CAST(365 * d.d_p + ((d.d_p) - (d.d_p) % 4) / 4 - ((d.d_p) - (d.d_p) % 100) / 100 + ((d.d_p) - (d.d_p) % 400) / 400 + d.d_j AS BIGINT) FROM (SELECT CAST(strftime('%Y', date((SELECT day FROM v_today))) AS INTEGER) - 1 AS d_p,
    CAST(strftime('%j', date((SELECT day FROM v_today))) AS INTEGER) AS d_j) d) - t.end_dn
   UNION ALL SELECT integer FROM column_types)       AS days_overdue,
  t.status                                           AS status,
  t.progress                                         AS progress,
  a.member_id                                        AS member_id,
  m.name                                             AS member_name,
  m.kind                                             AS member_kind
FROM (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t
JOIN projects p ON p.id = t.project_id
LEFT JOIN task_assignees a ON a.task_id = t.id
LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
WHERE t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today);

-- One row per dependency, with both tasks' names and statuses. It is blocking when the
-- predecessor is not done while the successor, not done either, should have started (its
-- start date is today or earlier).
CREATE VIEW v_dependencies AS
SELECT
  d.project_id                                       AS project_id,
  p.name                                             AS project_name,
  d.id                                               AS dependency_id,
  d.type                                             AS type,
  d.predecessor_id                                   AS predecessor_id,
  pre.name                                           AS predecessor_name,
  pre.status                                         AS predecessor_status,
  pre.end_date                                       AS predecessor_end_date,
  d.successor_id                                     AS successor_id,
  suc.name                                           AS successor_name,
  suc.status                                         AS successor_status,
  suc.start_date                                     AS successor_start_date,
  (SELECT coalesce(pre.status IS DISTINCT FROM 'Done' AND suc.status IS DISTINCT FROM 'Done'
            AND suc.start_date <= (SELECT day FROM v_today), FALSE)
   UNION ALL SELECT boolean FROM column_types)       AS is_blocking
FROM dependencies d
JOIN projects p ON p.id = d.project_id
LEFT JOIN tasks pre ON pre.id = d.predecessor_id
LEFT JOIN tasks suc ON suc.id = d.successor_id;

-- One row per project, day and status: how many tasks had that status at the end of that day,
-- and their task-days, from the project's first day in the mirror to today (the basis of
-- burndown charts, by count and by effort). Replayed from task_history: tasks without a
-- 'created' row belong to the baseline (the first sync) and count from the first day;
-- 'created' adds a task, 'status' moves it, 'deleted' removes it. The status a task had at the
-- baseline or at its creation is the old value of its next status change, else the status it
-- has now; a task deleted without any status change while mirrored counts under a NULL status
-- until its deletion. A task weighs its task-days as the mirror holds them now (0 once deleted).
-- Days are day numbers (0001-01-01 is 1) until the last step turns them into dates.
CREATE VIEW v_task_status_daily AS
WITH RECURSIVE
shift AS (
  SELECT utc_offset_minutes AS offset_minutes, CAST(365 * d.d_p + ((d.d_p) - (d.d_p) % 4) / 4 - ((d.d_p) - (d.d_p) % 100) / 100 + ((d.d_p) - (d.d_p) % 400) / 400 + d.d_j AS BIGINT) AS today_dn
  FROM (SELECT utc_offset_minutes, CAST(strftime('%Y', date(day)) AS INTEGER) - 1 AS d_p,
    CAST(strftime('%j', date(day)) AS INTEGER) AS d_j FROM v_today) d
),
history AS (
  SELECT h.*, CAST(strftime('%Y', date(h.observed_at)) AS INTEGER) - 1 AS o_p,
    CAST(strftime('%j', date(h.observed_at)) AS INTEGER) AS o_j,
      CAST(strftime('%H', h.observed_at) AS INTEGER) * 60 + CAST(strftime('%M', h.observed_at) AS INTEGER) AS o_minute
  FROM task_history h
  WHERE h.field IN ('created', 'deleted', 'status')
),
events AS (
  SELECT
    coalesce(t.project_id, h.project_id) AS project_id,
    CAST(365 * h.o_p + ((h.o_p) - (h.o_p) % 4) / 4 - ((h.o_p) - (h.o_p) % 100) / 100 + ((h.o_p) - (h.o_p) % 400) / 400 + h.o_j AS BIGINT) + CASE WHEN h.o_minute + shift.offset_minutes < 0 THEN -1 WHEN h.o_minute + shift.offset_minutes >= 1440 THEN 1 ELSE 0 END AS day, h.field, h.old_value, h.new_value,
    t.status AS current_status,
    CASE WHEN t.end_dn - t.start_dn + 1 > 0 THEN t.end_dn - t.start_dn + 1 ELSE 0 END AS weight,
    lag(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_field,
    lag(h.new_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_new,
    lead(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_field,
    lead(h.old_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_old
  FROM history h
  CROSS JOIN shift
  LEFT JOIN (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t ON t.id = h.task_id
),
-- Each event with the task's state before and after it: whether it exists, and its status.
steps AS (
  SELECT
    project_id, day, weight, prev_field IS NULL AS is_first,
    CASE WHEN prev_field IS NULL THEN field <> 'created' ELSE prev_field <> 'deleted' END
      AS exists_before,
    CASE
      WHEN prev_field = 'status' THEN prev_new
      WHEN prev_field = 'deleted' THEN NULL
      WHEN field = 'status' THEN old_value
    END AS status_before,
    field <> 'deleted' AS exists_after,
    CASE
      WHEN field = 'status' THEN new_value
      WHEN field = 'deleted' THEN NULL
      WHEN next_field = 'status' THEN next_old
      WHEN next_field IS NULL THEN current_status
    END AS status_after
  FROM events
),
-- +1 and -1 per status and day, with the task's weight; baseline tasks carry a NULL day: the
-- project's first day.
deltas AS (
  SELECT project_id, day, status_before AS status, -1 AS delta, -weight AS days
  FROM steps WHERE exists_before
  UNION ALL
  SELECT project_id, day, status_after, 1, weight FROM steps WHERE exists_after
  UNION ALL
  SELECT project_id, NULL, status_before, 1, weight FROM steps WHERE is_first AND exists_before
  UNION ALL
  SELECT project_id, NULL, status, 1, CASE WHEN t.end_dn - t.start_dn + 1 > 0 THEN t.end_dn - t.start_dn + 1 ELSE 0 END
  FROM (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t
  WHERE NOT EXISTS (
    SELECT 1 FROM task_history h
    WHERE h.field IN ('created', 'deleted', 'status') AND h.task_id = t.id
  )
),
-- The first day: the earliest time the mirror holds for the project.
stamps AS (
  SELECT s.project_id, CAST(365 * s.o_p + ((s.o_p) - (s.o_p) % 4) / 4 - ((s.o_p) - (s.o_p) % 100) / 100 + ((s.o_p) - (s.o_p) % 400) / 400 + s.o_j AS BIGINT) + CASE WHEN s.o_minute + shift.offset_minutes < 0 THEN -1 WHEN s.o_minute + shift.offset_minutes >= 1440 THEN 1 ELSE 0 END AS day
  FROM (
    SELECT x.project_id, CAST(strftime('%Y', date(x.at)) AS INTEGER) - 1 AS o_p,
    CAST(strftime('%j', date(x.at)) AS INTEGER) AS o_j,
      CAST(strftime('%H', x.at) AS INTEGER) * 60 + CAST(strftime('%M', x.at) AS INTEGER) AS o_minute
    FROM (
      SELECT id AS project_id, synced_at AS at FROM projects
      UNION ALL
      SELECT p.id, (SELECT min(h.observed_at) FROM task_history h WHERE h.project_id = p.id)
      FROM projects p
      UNION ALL
      SELECT project_id, min(synced_at) FROM tasks GROUP BY project_id
    ) x
  ) s
  CROSS JOIN shift
),
first_days AS (
  SELECT x.project_id, min(x.day) AS first_day
  FROM (
    SELECT project_id, day FROM stamps
    UNION ALL
    SELECT project_id, min(day) FROM deltas GROUP BY project_id
  ) x
  JOIN projects p ON p.id = x.project_id
  GROUP BY x.project_id
),
days (project_id, day) AS (
  SELECT project_id, first_day FROM first_days
  UNION ALL
  SELECT project_id, day + 1 FROM days WHERE day < (SELECT today_dn FROM shift)
),
changes AS (
  SELECT d.project_id, coalesce(d.day, f.first_day) AS day, d.status,
    sum(d.delta) AS delta, sum(d.days) AS days
  FROM deltas d JOIN first_days f ON f.project_id = d.project_id
  GROUP BY 1, 2, 3
),
statuses AS (SELECT DISTINCT project_id, status FROM changes),
totals AS (
  SELECT
    days.project_id, days.day AS n, statuses.status,
    sum(coalesce(c.delta, 0)) OVER running AS tasks,
    sum(coalesce(c.days, 0)) OVER running AS task_days
  FROM days
  JOIN statuses ON statuses.project_id = days.project_id
  LEFT JOIN changes c
    ON c.project_id = days.project_id AND c.day = days.day
      AND c.status IS NOT DISTINCT FROM statuses.status
  WINDOW running AS (
    PARTITION BY days.project_id, statuses.status ORDER BY days.day
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  )
),
total_era AS (
  SELECT s.*, CAST((s.n + 305) % 146097 AS BIGINT) AS doe,
    CAST(((s.n + 305) - (s.n + 305) % 146097) / 146097 AS BIGINT) AS era
  FROM (SELECT * FROM totals) s
),
total_shift AS (
  SELECT e.*, CAST(e.doe - ((e.doe) - (e.doe) % 1460) / 1460 + ((e.doe) - (e.doe) % 36524) / 36524 - ((e.doe) - (e.doe) % 146096) / 146096 AS BIGINT)
    AS shifted
  FROM total_era e
),
total_yoe AS (
  SELECT e.*, CAST(((e.shifted) - (e.shifted) % 365) / 365 AS BIGINT) AS yoe FROM total_shift e
),
total_doy AS (
  SELECT y.*, CAST(y.doe - (365 * y.yoe + ((y.yoe) - (y.yoe) % 4) / 4 - ((y.yoe) - (y.yoe) % 100) / 100) AS BIGINT) AS doy
  FROM total_yoe y
),
total_mp AS (
  SELECT d.*, CAST(((5 * d.doy + 2) - (5 * d.doy + 2) % 153) / 153 AS BIGINT) AS mp FROM total_doy d
),
total_dates AS (
  SELECT m.*, date(printf('%04d-%02d-%02d',
      CAST(m.yoe + m.era * 400 + CASE WHEN m.mp >= 10 THEN 1 ELSE 0 END AS BIGINT),
      CAST(CASE WHEN m.mp < 10 THEN m.mp + 3 ELSE m.mp - 9 END AS BIGINT),
      CAST(m.doy - ((153 * m.mp + 2) - (153 * m.mp + 2) % 5) / 5 + 1 AS BIGINT))) AS day
  FROM total_mp m
)
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  (SELECT x.day UNION ALL SELECT date FROM column_types) AS day,
  (SELECT x.status UNION ALL SELECT text FROM column_types) AS status,
  (SELECT CAST(x.tasks AS BIGINT) UNION ALL SELECT integer FROM column_types) AS tasks,
  (SELECT CAST(x.task_days AS BIGINT) UNION ALL SELECT integer FROM column_types) AS task_days
FROM total_dates x
JOIN projects p ON p.id = x.project_id;

-- One row per project member (and per assignee missing from the roster): open tasks, overdue
-- tasks and open task-days (the inclusive length of each open task, counted for every assignee).
CREATE VIEW v_member_workload AS
WITH people AS (
  SELECT project_id, id AS member_id FROM members
  UNION
  SELECT t.project_id, a.member_id FROM task_assignees a JOIN tasks t ON t.id = a.task_id
),
load AS (
  SELECT
    t.project_id, a.member_id,
    count(CASE WHEN t.status IS DISTINCT FROM 'Done' THEN 1 END)          AS open_tasks,
    count(CASE WHEN t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today) THEN 1 END) AS overdue_tasks,
    count(CASE WHEN t.status IS NOT DISTINCT FROM 'Done' THEN 1 END)      AS done_tasks,
    sum(CASE WHEN t.status IS DISTINCT FROM 'Done' THEN CASE WHEN t.end_dn - t.start_dn + 1 > 0 THEN t.end_dn - t.start_dn + 1 ELSE 0 END END) AS open_task_days
  FROM task_assignees a JOIN (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t ON t.id = a.task_id
  GROUP BY t.project_id, a.member_id
)
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  (SELECT people.member_id UNION ALL SELECT text FROM column_types) AS member_id,
  m.name                                             AS member_name,
  m.kind                                             AS member_kind,
  (SELECT coalesce(load.open_tasks, 0) UNION ALL SELECT integer FROM column_types) AS open_tasks,
  (SELECT coalesce(load.overdue_tasks, 0) UNION ALL SELECT integer FROM column_types)
                                                     AS overdue_tasks,
  (SELECT coalesce(load.done_tasks, 0) UNION ALL SELECT integer FROM column_types) AS done_tasks,
  (SELECT CAST(coalesce(load.open_task_days, 0) AS BIGINT)
   UNION ALL SELECT integer FROM column_types)       AS open_task_days
FROM people
JOIN projects p ON p.id = people.project_id
LEFT JOIN members m ON m.project_id = people.project_id AND m.id = people.member_id
LEFT JOIN load ON load.project_id = people.project_id AND load.member_id = people.member_id;

-- One row per project member and ISO week (Monday to Sunday) that an open task assigned to them
-- overlaps: how many such tasks, and their task-days that fall inside the week. A task counts
-- for each of its assignees; a task longer than ten years (3,653 days) counts its first ten.
-- Days are day numbers (0001-01-01, a Monday, is 1) until the last steps turn them into dates.
CREATE VIEW v_member_week_load AS
WITH RECURSIVE
spans AS (
  SELECT t.project_id, a.member_id, t.start_dn AS first_dn, t.end_dn AS last_dn
  FROM task_assignees a JOIN (
  SELECT y.*, CAST(365 * y.s_p + ((y.s_p) - (y.s_p) % 4) / 4 - ((y.s_p) - (y.s_p) % 100) / 100 + ((y.s_p) - (y.s_p) % 400) / 400 + y.s_j AS BIGINT) AS start_dn,
    CAST(365 * y.e_p + ((y.e_p) - (y.e_p) % 4) / 4 - ((y.e_p) - (y.e_p) % 100) / 100 + ((y.e_p) - (y.e_p) % 400) / 400 + y.e_j AS BIGINT) AS end_dn
  FROM (
    SELECT x.*,
      CAST(strftime('%Y', date(x.start_date)) AS INTEGER) - 1 AS s_p,
    CAST(strftime('%j', date(x.start_date)) AS INTEGER) AS s_j,
      CAST(strftime('%Y', date(x.end_date)) AS INTEGER) - 1 AS e_p,
    CAST(strftime('%j', date(x.end_date)) AS INTEGER) AS e_j
    FROM tasks x
  ) y
) t ON t.id = a.task_id
  WHERE t.status IS DISTINCT FROM 'Done' AND t.start_dn <= t.end_dn
),
weeks (project_id, member_id, first_dn, last_dn, week_dn) AS (
  SELECT project_id, member_id, first_dn, last_dn, first_dn - (first_dn - 1) % 7
  FROM spans
  UNION ALL
  SELECT project_id, member_id, first_dn, last_dn, week_dn + 7 FROM weeks
  WHERE week_dn + 7 <= last_dn AND week_dn + 7 <= first_dn + 3653
),
load AS (
  SELECT project_id, member_id, week_dn AS n, count(*) AS open_tasks,
    sum(CASE WHEN last_dn < week_dn + 6 THEN last_dn ELSE week_dn + 6 END - CASE WHEN first_dn > week_dn THEN first_dn ELSE week_dn END + 1) AS task_days
  FROM weeks GROUP BY project_id, member_id, week_dn
),
week_era AS (
  SELECT s.*, CAST((s.n + 305) % 146097 AS BIGINT) AS doe,
    CAST(((s.n + 305) - (s.n + 305) % 146097) / 146097 AS BIGINT) AS era
  FROM (SELECT * FROM load) s
),
week_shift AS (
  SELECT e.*, CAST(e.doe - ((e.doe) - (e.doe) % 1460) / 1460 + ((e.doe) - (e.doe) % 36524) / 36524 - ((e.doe) - (e.doe) % 146096) / 146096 AS BIGINT)
    AS shifted
  FROM week_era e
),
week_yoe AS (
  SELECT e.*, CAST(((e.shifted) - (e.shifted) % 365) / 365 AS BIGINT) AS yoe FROM week_shift e
),
week_doy AS (
  SELECT y.*, CAST(y.doe - (365 * y.yoe + ((y.yoe) - (y.yoe) % 4) / 4 - ((y.yoe) - (y.yoe) % 100) / 100) AS BIGINT) AS doy
  FROM week_yoe y
),
week_mp AS (
  SELECT d.*, CAST(((5 * d.doy + 2) - (5 * d.doy + 2) % 153) / 153 AS BIGINT) AS mp FROM week_doy d
),
week_dates AS (
  SELECT m.*, date(printf('%04d-%02d-%02d',
      CAST(m.yoe + m.era * 400 + CASE WHEN m.mp >= 10 THEN 1 ELSE 0 END AS BIGINT),
      CAST(CASE WHEN m.mp < 10 THEN m.mp + 3 ELSE m.mp - 9 END AS BIGINT),
      CAST(m.doy - ((153 * m.mp + 2) - (153 * m.mp + 2) % 5) / 5 + 1 AS BIGINT))) AS day
  FROM week_mp m
),
-- The week's Thursday (its start + 3 days) names its ISO year and week: as a year and day of year.
thursdays AS (
  SELECT w.*,
    CAST(strftime('%Y', w.day) AS INTEGER) AS y,
    CAST(strftime('%j', w.day) AS INTEGER) + 3 AS j,
    CASE WHEN (CAST(strftime('%Y', w.day) AS INTEGER) % 4 = 0
               AND CAST(strftime('%Y', w.day) AS INTEGER) % 100 <> 0)
           OR CAST(strftime('%Y', w.day) AS INTEGER) % 400 = 0 THEN 366 ELSE 365 END AS year_days
  FROM week_dates w
)
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  (SELECT x.member_id UNION ALL SELECT text FROM column_types) AS member_id,
  m.name                                             AS member_name,
  (SELECT printf('%04d-W%02d',
      CASE WHEN x.j > x.year_days THEN x.y + 1 ELSE x.y END,
      CAST(((CASE WHEN x.j > x.year_days THEN x.j - x.year_days ELSE x.j END - 1) - (CASE WHEN x.j > x.year_days THEN x.j - x.year_days ELSE x.j END - 1) % 7) / 7 + 1 AS BIGINT))
   UNION ALL SELECT text FROM column_types)          AS iso_week,
  (SELECT x.day UNION ALL SELECT date FROM column_types) AS week_start,
  (SELECT CAST(x.open_tasks AS BIGINT) UNION ALL SELECT integer FROM column_types) AS open_tasks,
  (SELECT CAST(x.task_days AS BIGINT) UNION ALL SELECT integer FROM column_types) AS task_days
FROM thursdays x
JOIN projects p ON p.id = x.project_id
LEFT JOIN members m ON m.project_id = x.project_id AND m.id = x.member_id;

-- Outbox items waiting in conflict (issue 21), one row each: the fields the service changed
-- since the item was queued, and their values when queued (base), in the item (local) and on the
-- service now (remote, NULL when it deleted the record), each a JSON object of field to value.
CREATE VIEW v_outbox_conflicts AS
SELECT
  o.id                                                                     AS id,
  o.op                                                                     AS op,
  o.project_id                                                             AS project_id,
  o.target_id                                                              AS target_id,
  (SELECT o.conflict ->> '$.fields' UNION ALL SELECT text FROM column_types) AS fields,
  (SELECT o.conflict ->> '$.base' UNION ALL SELECT text FROM column_types)   AS base,
  (SELECT o.conflict ->> '$.local' UNION ALL SELECT text FROM column_types)  AS local,
  (SELECT o.conflict ->> '$.remote' UNION ALL SELECT text FROM column_types) AS remote,
  o.last_error                                                             AS last_error,
  o.created_at                                                             AS queued_at
FROM outbox o
WHERE o.state = 'conflict' AND o.conflict IS NOT NULL;
