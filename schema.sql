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
