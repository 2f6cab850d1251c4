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
                  CHECK (state IN ('pending', 'sending', 'done', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  result          TEXT,                      -- the service's response body (JSON)
  request_body    TEXT,                      -- the exact bytes sent, fixed at the first attempt
  next_attempt_at TIMESTAMP,                 -- backoff: not sent again before this time
  created_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  token_label     TEXT                       -- the token it is sent with: chosen by enqueue --token,
                                             -- else fixed at its first attempt
);
CREATE INDEX outbox_queue ON outbox (state, project_id, id);

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
-- it can be split into the rows' own texts without parsing.
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

-- Small named values the daemon keeps across restarts (learned quota, the daily plan).
CREATE TABLE daemon_state (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
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
-- names), kept in step by triggers inside the transactions that write the tasks.
CREATE VIRTUAL TABLE tasks_fts USING fts5(
  name, content = 'tasks', content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER tasks_fts_after_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts (rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER tasks_fts_after_delete AFTER DELETE ON tasks BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
CREATE TRIGGER tasks_fts_after_update AFTER UPDATE OF name ON tasks
WHEN new.name IS NOT old.name BEGIN
  INSERT INTO tasks_fts (tasks_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO tasks_fts (rowid, name) VALUES (new.rowid, new.name);
END;

-- Reporting views and their indexes, for BI tools and hand-written SQL (docs/schema.md).
-- "Today" is v_today.day: the calendar day now in the mirror's time zone (timezone_offsets; UTC
-- without one), and days of history are calendar days at its current offset. A task is done
-- when its status is 'Done'; it is overdue when it is not done and its end_date is before today.
-- Every view column has a declared type (column_types above for BOOLEAN and DATE). The views
-- use window functions: readers need SQLite 3.25 or later.

-- Serves v_overdue_tasks and v_overdue_assignments, and any query of open tasks by end date
-- written with `status IS NOT 'Done'`.
CREATE INDEX tasks_open_by_end_date ON tasks (end_date) WHERE status IS NOT 'Done';
-- Serves v_task_status_daily: the creations, deletions and status changes of each task in order.
CREATE INDEX task_history_by_field ON task_history (field, task_id);


-- One row: today's date in the mirror's time zone, the zone, and its offset from UTC now.
CREATE VIEW v_today AS
SELECT
  (SELECT date('now', coalesce(o.offset_minutes, 0) || ' minutes')
   UNION ALL SELECT date FROM column_types)          AS day,
  (SELECT coalesce(o.zone, 'UTC') UNION ALL SELECT text FROM column_types) AS timezone,
  (SELECT coalesce(o.offset_minutes, 0) UNION ALL SELECT integer FROM column_types)
                                                     AS utc_offset_minutes
FROM (SELECT 1) AS one
LEFT JOIN (
  SELECT zone, offset_minutes FROM timezone_offsets
  WHERE starts_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  ORDER BY starts_at DESC LIMIT 1
) AS o;

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
  (SELECT json_group_array(member_id) FROM (
     SELECT a.member_id FROM task_assignees a WHERE a.task_id = t.id ORDER BY a.member_id
   ) UNION ALL SELECT text FROM column_types)        AS assignee_ids,
  (SELECT json_group_array(name) FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignee_names,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignees,
  (SELECT t.status IS 'Done' UNION ALL SELECT boolean FROM column_types) AS is_done,
  (SELECT ifnull(t.status IS NOT 'Done' AND t.end_date < (SELECT day FROM v_today), 0)
   UNION ALL SELECT boolean FROM column_types)       AS is_overdue,
  (SELECT CAST(julianday(t.end_date) - julianday(t.start_date) + 1 AS INTEGER)
   UNION ALL SELECT integer FROM column_types)       AS duration_days,
  t.updated_at                                       AS updated_at,
  t.synced_at                                        AS synced_at
FROM tasks t
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
    project_id,
    count(*)                                         AS tasks,
    sum(status IS 'NotStarted')                      AS not_started,
    sum(status IS 'InProgress')                      AS in_progress,
    sum(status IS 'Done')                            AS done,
    sum(status IS NULL OR status NOT IN ('NotStarted', 'InProgress', 'Done')) AS other_status,
    avg(progress)                                    AS avg_progress,
    sum(status IS NOT 'Done' AND end_date < (SELECT day FROM v_today)) AS overdue
  FROM tasks GROUP BY project_id
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
  (SELECT CAST(julianday((SELECT day FROM v_today)) - julianday(t.end_date) AS INTEGER)
   UNION ALL SELECT integer FROM column_types)       AS days_overdue,
  t.status                                           AS status,
  t.progress                                         AS progress,
  (SELECT json_group_array(member_id) FROM (
     SELECT a.member_id FROM task_assignees a WHERE a.task_id = t.id ORDER BY a.member_id
   ) UNION ALL SELECT text FROM column_types)        AS assignee_ids,
  (SELECT json_group_array(name) FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignee_names,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ) UNION ALL SELECT text FROM column_types)        AS assignees
FROM tasks t
JOIN projects p ON p.id = t.project_id
WHERE t.status IS NOT 'Done' AND t.end_date < (SELECT day FROM v_today);

-- One row per overdue task and assignee (one with a NULL member for an unassigned task), to
-- filter overdue work by person.
CREATE VIEW v_overdue_assignments AS
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  t.name                                             AS task_name,
  t.end_date                                         AS end_date,
  (SELECT CAST(julianday((SELECT day FROM v_today)) - julianday(t.end_date) AS INTEGER)
   UNION ALL SELECT integer FROM column_types)       AS days_overdue,
  t.status                                           AS status,
  t.progress                                         AS progress,
  a.member_id                                        AS member_id,
  m.name                                             AS member_name,
  m.kind                                             AS member_kind
FROM tasks t
JOIN projects p ON p.id = t.project_id
LEFT JOIN task_assignees a ON a.task_id = t.id
LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
WHERE t.status IS NOT 'Done' AND t.end_date < (SELECT day FROM v_today);

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
  (SELECT ifnull(pre.status IS NOT 'Done' AND suc.status IS NOT 'Done'
            AND suc.start_date <= (SELECT day FROM v_today), 0)
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
CREATE VIEW v_task_status_daily AS
WITH RECURSIVE
shift AS (SELECT utc_offset_minutes || ' minutes' AS modifier, day AS today FROM v_today),
events AS (
  SELECT
    coalesce(t.project_id, h.project_id) AS project_id,
    date(h.observed_at, shift.modifier) AS day, h.field, h.old_value, h.new_value,
    t.status AS current_status,
    ifnull(max(julianday(t.end_date) - julianday(t.start_date) + 1, 0), 0) AS weight,
    lag(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_field,
    lag(h.new_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_new,
    lead(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_field,
    lead(h.old_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_old
  FROM task_history h
  CROSS JOIN shift
  LEFT JOIN tasks t ON t.id = h.task_id
  WHERE h.field IN ('created', 'deleted', 'status')
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
  SELECT project_id, NULL, status, 1,
    ifnull(max(julianday(end_date) - julianday(start_date) + 1, 0), 0)
  FROM tasks t
  WHERE NOT EXISTS (
    SELECT 1 FROM task_history h
    WHERE h.field IN ('created', 'deleted', 'status') AND h.task_id = t.id
  )
),
-- The first day: the earliest time the mirror holds for the project.
first_days AS (
  SELECT x.project_id, min(x.day) AS first_day
  FROM (
    SELECT id AS project_id, date(synced_at, shift.modifier) AS day FROM projects, shift
    UNION ALL
    SELECT p.id, date((SELECT min(h.observed_at) FROM task_history h WHERE h.project_id = p.id),
      shift.modifier)
    FROM projects p, shift
    UNION ALL
    SELECT project_id, date(min(synced_at), shift.modifier) FROM tasks, shift GROUP BY project_id
    UNION ALL
    SELECT project_id, min(day) FROM deltas GROUP BY project_id
  ) x
  JOIN projects p ON p.id = x.project_id
  GROUP BY x.project_id
),
days (project_id, day) AS (
  SELECT project_id, first_day FROM first_days
  UNION ALL
  SELECT project_id, date(day, '+1 day') FROM days WHERE day < (SELECT today FROM shift)
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
    days.project_id, days.day, statuses.status,
    sum(coalesce(c.delta, 0)) OVER running AS tasks,
    sum(coalesce(c.days, 0)) OVER running AS task_days
  FROM days
  JOIN statuses ON statuses.project_id = days.project_id
  LEFT JOIN changes c
    ON c.project_id = days.project_id AND c.day = days.day AND c.status IS statuses.status
  WINDOW running AS (
    PARTITION BY days.project_id, statuses.status ORDER BY days.day
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  )
)
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  (SELECT x.day UNION ALL SELECT date FROM column_types) AS day,
  (SELECT x.status UNION ALL SELECT text FROM column_types) AS status,
  (SELECT x.tasks UNION ALL SELECT integer FROM column_types) AS tasks,
  (SELECT CAST(x.task_days AS INTEGER) UNION ALL SELECT integer FROM column_types) AS task_days
FROM totals x
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
    sum(t.status IS NOT 'Done')                      AS open_tasks,
    sum(t.status IS NOT 'Done' AND t.end_date < (SELECT day FROM v_today)) AS overdue_tasks,
    sum(t.status IS 'Done')                          AS done_tasks,
    sum(CASE WHEN t.status IS NOT 'Done'
        THEN max(julianday(t.end_date) - julianday(t.start_date) + 1, 0) END) AS open_task_days
  FROM task_assignees a JOIN tasks t ON t.id = a.task_id
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
  (SELECT CAST(coalesce(load.open_task_days, 0) AS INTEGER)
   UNION ALL SELECT integer FROM column_types)       AS open_task_days
FROM people
JOIN projects p ON p.id = people.project_id
LEFT JOIN members m ON m.project_id = people.project_id AND m.id = people.member_id
LEFT JOIN load ON load.project_id = people.project_id AND load.member_id = people.member_id;

-- One row per project member and ISO week (Monday to Sunday) that an open task assigned to them
-- overlaps: how many such tasks, and their task-days that fall inside the week. A task counts
-- for each of its assignees; a task longer than ten years (3,653 days) counts its first ten.
CREATE VIEW v_member_week_load AS
WITH RECURSIVE
spans AS (
  SELECT t.project_id, a.member_id,
    julianday(t.start_date) AS first_jd, julianday(t.end_date) AS last_jd
  FROM task_assignees a JOIN tasks t ON t.id = a.task_id
  WHERE t.status IS NOT 'Done' AND julianday(t.start_date) <= julianday(t.end_date)
),
weeks (project_id, member_id, first_jd, last_jd, week_jd) AS (
  SELECT project_id, member_id, first_jd, last_jd,
    julianday(date(first_jd, 'weekday 0', '-6 days'))
  FROM spans
  UNION ALL
  SELECT project_id, member_id, first_jd, last_jd, week_jd + 7 FROM weeks
  WHERE week_jd + 7 <= last_jd AND week_jd + 7 <= first_jd + 3653
),
load AS (
  SELECT project_id, member_id, week_jd, count(*) AS open_tasks,
    sum(min(last_jd, week_jd + 6) - max(first_jd, week_jd) + 1) AS task_days
  FROM weeks GROUP BY project_id, member_id, week_jd
)
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  (SELECT x.member_id UNION ALL SELECT text FROM column_types) AS member_id,
  m.name                                             AS member_name,
  (SELECT strftime('%Y', x.week_jd + 3) || '-W'
      || printf('%02d', (strftime('%j', x.week_jd + 3) - 1) / 7 + 1)
   UNION ALL SELECT text FROM column_types)          AS iso_week,
  (SELECT date(x.week_jd) UNION ALL SELECT date FROM column_types) AS week_start,
  (SELECT x.open_tasks UNION ALL SELECT integer FROM column_types) AS open_tasks,
  (SELECT CAST(x.task_days AS INTEGER) UNION ALL SELECT integer FROM column_types) AS task_days
FROM load x
JOIN projects p ON p.id = x.project_id
LEFT JOIN members m ON m.project_id = x.project_id AND m.id = x.member_id;
