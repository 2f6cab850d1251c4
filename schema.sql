-- projmirror's mirror: the only DDL. Applied on open when PRAGMA user_version is 0; later
-- versions migrate through src/store/migrations.ts. Timestamps are ISO-8601 UTC text.

-- One row per project mirrored.
CREATE TABLE projects (
  id               TEXT PRIMARY KEY,
  name             TEXT,                     -- typed columns are NULL when the service omits the field
  active           INTEGER CHECK (active IN (0, 1)),
  read_only_reason TEXT,
  data             TEXT NOT NULL,            -- the service's whole JSON object
  synced_at        TEXT NOT NULL             -- when this row was last written from the service
);

-- Exactly the tasks the service has now.
CREATE TABLE tasks (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       TEXT,
  start_date TEXT,
  end_date   TEXT,
  status     TEXT,
  progress   REAL,
  updated_at TEXT,                           -- the service's updatedAt, when it sends one
  data       TEXT NOT NULL,
  synced_at  TEXT NOT NULL
);
CREATE INDEX tasks_by_project ON tasks (project_id, status);

-- Who is assigned to each task, from assigneeIds.
CREATE TABLE task_assignees (
  task_id   TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  member_id TEXT NOT NULL,
  PRIMARY KEY (task_id, member_id)
) WITHOUT ROWID;
CREATE INDEX task_assignees_by_member ON task_assignees (member_id);

-- Each project's roster, integration identities included.
CREATE TABLE members (
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id         TEXT NOT NULL,
  name       TEXT,
  kind       TEXT,                           -- person | integration
  data       TEXT NOT NULL,
  synced_at  TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

CREATE TABLE resources (
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id         TEXT NOT NULL,
  name       TEXT,
  data       TEXT NOT NULL,
  synced_at  TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

CREATE TABLE dependencies (
  project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id             TEXT NOT NULL,
  predecessor_id TEXT,
  successor_id   TEXT,
  type           TEXT,
  data           TEXT NOT NULL,
  synced_at      TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

-- Append-only: every change the mirror observes in a task's name, dates, status, progress or
-- assignees, and its creation and deletion. Not tied to tasks by a foreign key: a deleted task's
-- history stays.
CREATE TABLE task_history (
  id          INTEGER PRIMARY KEY,
  task_id     TEXT NOT NULL,
  project_id  TEXT NOT NULL,
  observed_at TEXT NOT NULL,
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
  next_attempt_at TEXT,                      -- backoff: not sent again before this time
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
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
  last_pass_at  TEXT,                       -- end of the last consistent full pass
  last_change_at TEXT,                      -- last time a pass or an event changed a mirrored row
  project_etag  TEXT,                       -- ETag of get project, for its conditional read
  last_error    TEXT,                       -- one line: why the last pass failed; NULL after success
  last_error_at TEXT
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
  read_at    TEXT NOT NULL,                  -- when these rows were received (a 304 leaves it)
  rows       TEXT NOT NULL,                  -- last, and a rowid table: the ETag reads without it
  UNIQUE (project_id, page_size, page)
);

-- Small named values the daemon keeps across restarts (learned quota, the daily plan).
CREATE TABLE daemon_state (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;

-- Reporting views and their indexes, for BI tools and hand-written SQL (docs/schema.md).
-- Days are UTC calendar days; "today" is date('now'). A task is done when its status is 'Done';
-- it is overdue when it is not done and its end_date (YYYY-MM-DD) is before today. The views use
-- window functions: readers need SQLite 3.25 or later.

-- Serves v_overdue_tasks, and any query of open tasks by end date written with
-- `status IS NOT 'Done'`.
CREATE INDEX tasks_open_by_end_date ON tasks (end_date) WHERE status IS NOT 'Done';
-- Serves v_task_status_daily: the creations, deletions and status changes of each task in order.
CREATE INDEX task_history_by_field ON task_history (field, task_id);

-- One row per task: its project's name, its assignees' names, and whether it is done or overdue.
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
  (SELECT group_concat(member_id, ', ') FROM (
     SELECT a.member_id FROM task_assignees a WHERE a.task_id = t.id ORDER BY a.member_id
   ))                                                AS assignee_ids,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ))                                                AS assignee_names,
  (t.status IS 'Done')                               AS is_done,
  ifnull(t.status IS NOT 'Done' AND t.end_date < date('now'), 0) AS is_overdue,
  CAST(julianday(t.end_date) - julianday(t.start_date) + 1 AS INTEGER) AS duration_days,
  t.updated_at                                       AS updated_at,
  t.synced_at                                        AS synced_at
FROM tasks t
JOIN projects p ON p.id = t.project_id;

-- One row per project: tasks by status, percent done, average progress and overdue count.
CREATE VIEW v_project_progress AS
SELECT
  p.id                                               AS project_id,
  p.name                                             AS project_name,
  p.active                                           AS active,
  p.read_only_reason                                 AS read_only_reason,
  coalesce(c.tasks, 0)                               AS tasks,
  coalesce(c.not_started, 0)                         AS not_started,
  coalesce(c.in_progress, 0)                         AS in_progress,
  coalesce(c.done, 0)                                AS done,
  coalesce(c.other_status, 0)                        AS other_status,
  round(100.0 * c.done / c.tasks, 1)                 AS percent_done,
  round(c.avg_progress, 1)                           AS avg_progress,
  coalesce(c.overdue, 0)                             AS overdue,
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
    sum(status IS NOT 'Done' AND end_date < date('now')) AS overdue
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
  CAST(julianday(date('now')) - julianday(t.end_date) AS INTEGER) AS days_overdue,
  t.status                                           AS status,
  t.progress                                         AS progress,
  (SELECT group_concat(name, ', ') FROM (
     SELECT coalesce(m.name, a.member_id) AS name
     FROM task_assignees a
     LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
     WHERE a.task_id = t.id ORDER BY 1
   ))                                                AS assignee_names
FROM tasks t
JOIN projects p ON p.id = t.project_id
WHERE t.status IS NOT 'Done' AND t.end_date < date('now');

-- One row per project, UTC day and status: how many tasks had that status at the end of that
-- day, from the project's first day in the mirror to today (the basis of burndown charts).
-- Replayed from task_history: tasks without a 'created' row belong to the baseline (the first
-- sync) and count from the first day; 'created' adds a task, 'status' moves it, 'deleted'
-- removes it. The status a task had at the baseline or at its creation is the old value of its
-- next status change, else the status it has now; a task deleted without any status change
-- while mirrored counts under a NULL status until its deletion.
CREATE VIEW v_task_status_daily AS
WITH RECURSIVE
events AS (
  SELECT
    coalesce(t.project_id, h.project_id) AS project_id,
    date(h.observed_at) AS day, h.field, h.old_value, h.new_value, t.status AS current_status,
    lag(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_field,
    lag(h.new_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS prev_new,
    lead(h.field) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_field,
    lead(h.old_value) OVER (PARTITION BY h.task_id ORDER BY h.id) AS next_old
  FROM task_history h
  LEFT JOIN tasks t ON t.id = h.task_id
  WHERE h.field IN ('created', 'deleted', 'status')
),
-- Each event with the task's state before and after it: whether it exists, and its status.
steps AS (
  SELECT
    project_id, day, prev_field IS NULL AS is_first,
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
-- +1 and -1 per status and day; baseline tasks carry a NULL day: the project's first day.
deltas AS (
  SELECT project_id, day, status_before AS status, -1 AS delta FROM steps WHERE exists_before
  UNION ALL
  SELECT project_id, day, status_after, 1 FROM steps WHERE exists_after
  UNION ALL
  SELECT project_id, NULL, status_before, 1 FROM steps WHERE is_first AND exists_before
  UNION ALL
  SELECT project_id, NULL, status, 1 FROM tasks t
  WHERE NOT EXISTS (
    SELECT 1 FROM task_history h
    WHERE h.field IN ('created', 'deleted', 'status') AND h.task_id = t.id
  )
),
-- The first day: the earliest time the mirror holds for the project.
first_days AS (
  SELECT x.project_id, min(x.day) AS first_day
  FROM (
    SELECT id AS project_id, date(synced_at) AS day FROM projects
    UNION ALL
    SELECT p.id, date((SELECT min(h.observed_at) FROM task_history h WHERE h.project_id = p.id))
    FROM projects p
    UNION ALL
    SELECT project_id, date(min(synced_at)) FROM tasks GROUP BY project_id
    UNION ALL
    SELECT project_id, min(day) FROM deltas GROUP BY project_id
  ) x
  JOIN projects p ON p.id = x.project_id
  GROUP BY x.project_id
),
days (project_id, day) AS (
  SELECT project_id, first_day FROM first_days
  UNION ALL
  SELECT project_id, date(day, '+1 day') FROM days WHERE day < date('now')
),
changes AS (
  SELECT d.project_id, coalesce(d.day, f.first_day) AS day, d.status, sum(d.delta) AS delta
  FROM deltas d JOIN first_days f ON f.project_id = d.project_id
  GROUP BY 1, 2, 3
),
statuses AS (SELECT DISTINCT project_id, status FROM changes)
SELECT
  days.project_id                                    AS project_id,
  p.name                                             AS project_name,
  days.day                                           AS day,
  statuses.status                                    AS status,
  sum(coalesce(c.delta, 0)) OVER (
    PARTITION BY days.project_id, statuses.status ORDER BY days.day
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  )                                                  AS tasks
FROM days
JOIN projects p ON p.id = days.project_id
JOIN statuses ON statuses.project_id = days.project_id
LEFT JOIN changes c
  ON c.project_id = days.project_id AND c.day = days.day AND c.status IS statuses.status;

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
    sum(t.status IS NOT 'Done' AND t.end_date < date('now')) AS overdue_tasks,
    sum(t.status IS 'Done')                          AS done_tasks,
    sum(CASE WHEN t.status IS NOT 'Done'
        THEN max(julianday(t.end_date) - julianday(t.start_date) + 1, 0) END) AS open_task_days
  FROM task_assignees a JOIN tasks t ON t.id = a.task_id
  GROUP BY t.project_id, a.member_id
)
SELECT
  people.project_id                                  AS project_id,
  p.name                                             AS project_name,
  people.member_id                                   AS member_id,
  m.name                                             AS member_name,
  m.kind                                             AS member_kind,
  coalesce(load.open_tasks, 0)                       AS open_tasks,
  coalesce(load.overdue_tasks, 0)                    AS overdue_tasks,
  coalesce(load.done_tasks, 0)                       AS done_tasks,
  CAST(coalesce(load.open_task_days, 0) AS INTEGER)  AS open_task_days
FROM people
JOIN projects p ON p.id = people.project_id
LEFT JOIN members m ON m.project_id = people.project_id AND m.id = people.member_id
LEFT JOIN load ON load.project_id = people.project_id AND load.member_id = people.member_id;
