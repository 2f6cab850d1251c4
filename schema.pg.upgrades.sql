-- The steps that bring a PostgreSQL mirror made by an earlier projmirror to the current schema,
-- one section per version ("-- to version N"), each run once in the transaction that opens the
-- mirror (src/store/postgres/open.ts), oldest first. A fresh mirror is made from schema.pg.sql,
-- which already holds all of them. Keep each section equal to what schema.pg.sql makes. After
-- the steps, every view of schema.pg.sql the mirror lacks is made from there: a step adds no
-- view, and a step that changes one drops it.

-- to version 4
-- (The views changed for SQLite and DuckDB only; nothing to do here.)

-- to version 5
ALTER TABLE outbox ADD COLUMN base text, ADD COLUMN conflict text;
ALTER TABLE outbox DROP CONSTRAINT outbox_state_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_state_check
  CHECK (state IN ('pending', 'sending', 'done', 'failed', 'conflict', 'discarded'));

-- An outbox body as jsonb; NULL when it is not JSON (the push fails such an item, a trigger or
-- view must not).
CREATE FUNCTION outbox_body(body text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN body::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

-- The base of an edit, recorded when it is queued however it is queued: schema.sql's
-- outbox_base, the same JSON (see there).
CREATE FUNCTION outbox_base() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  body jsonb := outbox_body(NEW.body);
  record jsonb;
BEGIN
  IF NEW.base IS NOT NULL OR body IS NULL
    OR NEW.op NOT IN ('task.update', 'task.set_assignees', 'resource.update', 'dependency.set') THEN
    RETURN NEW;
  END IF;
  IF NEW.op = 'dependency.set' THEN
    NEW.base := jsonb_build_object('record', 'present', 'values', jsonb_build_object(
      'dependencies', (SELECT coalesce(jsonb_agg(jsonb_build_object('predecessorId',
        d.predecessor_id, 'successorId', d.successor_id, 'type', d.type)), '[]'::jsonb)
        FROM dependencies d WHERE d.project_id = NEW.project_id)))::text;
    RETURN NEW;
  END IF;
  IF NEW.op = 'resource.update' THEN
    SELECT r.data INTO record FROM resources r
    WHERE r.project_id = NEW.project_id AND r.id = NEW.target_id;
  ELSE
    SELECT t.data INTO record FROM tasks t
    WHERE t.project_id = NEW.project_id AND t.id = NEW.target_id;
  END IF;
  IF record IS NULL THEN
    NEW.base := jsonb_build_object('record', 'absent')::text;
    RETURN NEW;
  END IF;
  NEW.base := jsonb_build_object('record', 'present', 'values', coalesce((
    SELECT jsonb_object_agg(f.field, coalesce(record -> f.field, 'null'::jsonb))
    FROM (SELECT b.key AS field FROM jsonb_each(
            CASE WHEN jsonb_typeof(body) = 'object' THEN body ELSE '{}'::jsonb END) b
          WHERE NEW.op = 'resource.update'
          UNION ALL
          SELECT n.field FROM unnest(ARRAY['name', 'startDate', 'endDate', 'status', 'progress',
            'assigneeIds']) AS n(field)
          WHERE NEW.op <> 'resource.update' AND CASE
            WHEN NEW.op = 'task.set_assignees' THEN n.field = 'assigneeIds'
            WHEN jsonb_typeof(body) <> 'object' THEN false
            ELSE body ? n.field OR (n.field = 'status' AND body ? 'progress')
              OR (n.field = 'progress' AND body ? 'status') END) f), '{}'::jsonb))::text;
  RETURN NEW;
END
$$;
CREATE TRIGGER outbox_base BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION outbox_base();

-- (v_outbox_conflicts: made from schema.pg.sql after the steps, as every missing view is.)

-- to version 6
-- (SQLite's field discovery moved from per-row triggers into the writer; PostgreSQL keeps its
-- note_data_fields trigger beside the writer's notes, both ignoring duplicates: nothing to do.)

-- to version 7
-- (v_tasks_pending, the tasks as they will be once the outbox drains: made from schema.pg.sql
-- after the steps, as every missing view is.)

-- to version 8
-- Field discovery is the writer's, as on SQLite (issue 20): the per-row trigger that walked
-- every written row's jsonb took 45% of the server's time in a cold sync.
DROP TRIGGER IF EXISTS projects_fields ON projects;
DROP TRIGGER IF EXISTS tasks_fields ON tasks;
DROP TRIGGER IF EXISTS members_fields ON members;
DROP TRIGGER IF EXISTS resources_fields ON resources;
DROP TRIGGER IF EXISTS dependencies_fields ON dependencies;
DROP FUNCTION IF EXISTS note_data_fields();
DROP FUNCTION IF EXISTS data_value_type(jsonb);

-- to version 9
-- (Each statement may meet its object already there: a test's mirror of an earlier version is made
-- from the current schema.pg.sql.)
-- The change feed (docs/changes.md): schema.sql's `changes`, written by the statement-level
-- triggers below over their transition tables, in the transaction that writes the rows. Several
-- daemons commit at once, so `seq` is given at COMMIT: the rows wait with a provisional seq below 0
-- (their order in the transaction), and the deferred trigger on change_commits numbers them from
-- changes_seq under an advisory lock held until the commit completes: numbers in commit order.
-- `batch` is the transaction's id. committed_at is set when the rows are numbered.
CREATE SEQUENCE IF NOT EXISTS changes_seq;
CREATE SEQUENCE IF NOT EXISTS changes_order;
CREATE TABLE IF NOT EXISTS changes (
  seq          bigint PRIMARY KEY,
  committed_at timestamptz NOT NULL DEFAULT now(),
  batch        bigint NOT NULL,
  entity       text NOT NULL,
  project_id   text NOT NULL,
  entity_id    text NOT NULL,
  op           text NOT NULL,
  data         jsonb,
  fields       jsonb
);
CREATE INDEX IF NOT EXISTS changes_assignment_deletes ON changes (entity_id)
  WHERE entity = 'assignment' AND op = 'delete';
-- One row per transaction that wrote changes, until its commit numbers them.
CREATE TABLE IF NOT EXISTS change_commits (batch bigint PRIMARY KEY);

-- The transaction's batch; its first call also queues the numbering at commit (a transaction
-- setting remembers it, rolled back with a savepoint as the row is).
CREATE OR REPLACE FUNCTION change_batch() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  batch bigint := pg_current_xact_id()::text::bigint;
BEGIN
  IF current_setting('projmirror.change_batch', true) IS DISTINCT FROM batch::text THEN
    INSERT INTO change_commits VALUES (batch) ON CONFLICT DO NOTHING;
    PERFORM set_config('projmirror.change_batch', batch::text, true);
  END IF;
  RETURN batch;
END
$$;

-- At COMMIT: the transaction's rows take the next numbers, in their order, one committing
-- transaction at a time (the lock is released only once the commit is visible).
CREATE OR REPLACE FUNCTION changes_number() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  n bigint;
  first bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.changes'));
  SELECT count(*) INTO n FROM changes WHERE seq < 0 AND batch = NEW.batch;
  IF n > 0 THEN
    first := nextval('changes_seq');
    IF n > 1 THEN
      PERFORM setval('changes_seq', first + n - 1);
    END IF;
    UPDATE changes c SET seq = first + o.position - 1, committed_at = clock_timestamp()
    FROM (SELECT seq AS provisional, row_number() OVER (ORDER BY seq DESC) AS position
          FROM changes WHERE seq < 0 AND batch = NEW.batch) o
    WHERE c.seq = o.provisional;
  END IF;
  DELETE FROM change_commits WHERE batch = NEW.batch;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS changes_number ON change_commits;
CREATE CONSTRAINT TRIGGER changes_number AFTER INSERT ON change_commits
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION changes_number();

-- Projects, tasks, members, resources, dependencies: as schema.sql's triggers (see there).
CREATE OR REPLACE FUNCTION projects_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'project', n.id, n.id, 'insert', n.data, NULL
    FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.id AND s.backfill <> 'done');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'project', n.id, n.id, 'update', n.data,
      (SELECT coalesce(jsonb_agg(f.name ORDER BY f.position), '[]'::jsonb)
       FROM (VALUES (0, 'name', n.name IS DISTINCT FROM o.name), (1, 'active', n.active IS DISTINCT FROM o.active), (2, 'read_only_reason', n.read_only_reason IS DISTINCT FROM o.read_only_reason)) AS f (position, name, changed) WHERE f.changed)
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.data IS DISTINCT FROM o.data) AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.id AND s.backfill <> 'done');
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'project', o.id, o.id, 'delete', NULL, NULL
    FROM old_rows o WHERE true;
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS projects_changes_insert ON projects;
CREATE TRIGGER projects_changes_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION projects_changes();
DROP TRIGGER IF EXISTS projects_changes_update ON projects;
CREATE TRIGGER projects_changes_update AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION projects_changes();
DROP TRIGGER IF EXISTS projects_changes_delete ON projects;
CREATE TRIGGER projects_changes_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION projects_changes();

CREATE OR REPLACE FUNCTION tasks_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'task', n.project_id, n.id, 'insert', n.data, NULL
    FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'task', n.project_id, n.id, 'update', n.data,
      (SELECT coalesce(jsonb_agg(f.name ORDER BY f.position), '[]'::jsonb)
       FROM (VALUES (0, 'project_id', n.project_id IS DISTINCT FROM o.project_id), (1, 'name', n.name IS DISTINCT FROM o.name), (2, 'start_date', n.start_date IS DISTINCT FROM o.start_date), (3, 'end_date', n.end_date IS DISTINCT FROM o.end_date), (4, 'status', n.status IS DISTINCT FROM o.status), (5, 'progress', n.progress IS DISTINCT FROM o.progress), (6, 'updated_at', n.updated_at IS DISTINCT FROM o.updated_at)) AS f (position, name, changed) WHERE f.changed)
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.data IS DISTINCT FROM o.data OR n.project_id IS DISTINCT FROM o.project_id) AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'task', o.project_id, o.id, 'delete', NULL, NULL
    FROM old_rows o WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = o.project_id)
        AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = o.project_id AND s.backfill <> 'done');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS tasks_changes_insert ON tasks;
CREATE TRIGGER tasks_changes_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_changes();
DROP TRIGGER IF EXISTS tasks_changes_update ON tasks;
CREATE TRIGGER tasks_changes_update AFTER UPDATE ON tasks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_changes();
DROP TRIGGER IF EXISTS tasks_changes_delete ON tasks;
CREATE TRIGGER tasks_changes_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_changes();

CREATE OR REPLACE FUNCTION members_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'member', n.project_id, n.id, 'insert', n.data, NULL
    FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'member', n.project_id, n.id, 'update', n.data,
      (SELECT coalesce(jsonb_agg(f.name ORDER BY f.position), '[]'::jsonb)
       FROM (VALUES (0, 'name', n.name IS DISTINCT FROM o.name), (1, 'kind', n.kind IS DISTINCT FROM o.kind)) AS f (position, name, changed) WHERE f.changed)
    FROM new_rows n JOIN old_rows o ON o.project_id = n.project_id AND o.id = n.id
    WHERE (n.data IS DISTINCT FROM o.data) AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'member', o.project_id, o.id, 'delete', NULL, NULL
    FROM old_rows o WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = o.project_id)
        AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = o.project_id AND s.backfill <> 'done');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS members_changes_insert ON members;
CREATE TRIGGER members_changes_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION members_changes();
DROP TRIGGER IF EXISTS members_changes_update ON members;
CREATE TRIGGER members_changes_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION members_changes();
DROP TRIGGER IF EXISTS members_changes_delete ON members;
CREATE TRIGGER members_changes_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION members_changes();

CREATE OR REPLACE FUNCTION resources_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'resource', n.project_id, n.id, 'insert', n.data, NULL
    FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'resource', n.project_id, n.id, 'update', n.data,
      (SELECT coalesce(jsonb_agg(f.name ORDER BY f.position), '[]'::jsonb)
       FROM (VALUES (0, 'name', n.name IS DISTINCT FROM o.name)) AS f (position, name, changed) WHERE f.changed)
    FROM new_rows n JOIN old_rows o ON o.project_id = n.project_id AND o.id = n.id
    WHERE (n.data IS DISTINCT FROM o.data) AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'resource', o.project_id, o.id, 'delete', NULL, NULL
    FROM old_rows o WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = o.project_id)
        AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = o.project_id AND s.backfill <> 'done');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS resources_changes_insert ON resources;
CREATE TRIGGER resources_changes_insert AFTER INSERT ON resources REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION resources_changes();
DROP TRIGGER IF EXISTS resources_changes_update ON resources;
CREATE TRIGGER resources_changes_update AFTER UPDATE ON resources
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION resources_changes();
DROP TRIGGER IF EXISTS resources_changes_delete ON resources;
CREATE TRIGGER resources_changes_delete AFTER DELETE ON resources REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION resources_changes();

CREATE OR REPLACE FUNCTION dependencies_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'dependency', n.project_id, n.id, 'insert', n.data, NULL
    FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'dependency', n.project_id, n.id, 'update', n.data,
      (SELECT coalesce(jsonb_agg(f.name ORDER BY f.position), '[]'::jsonb)
       FROM (VALUES (0, 'predecessor_id', n.predecessor_id IS DISTINCT FROM o.predecessor_id), (1, 'successor_id', n.successor_id IS DISTINCT FROM o.successor_id), (2, 'type', n.type IS DISTINCT FROM o.type)) AS f (position, name, changed) WHERE f.changed)
    FROM new_rows n JOIN old_rows o ON o.project_id = n.project_id AND o.id = n.id
    WHERE (n.data IS DISTINCT FROM o.data) AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = n.project_id AND s.backfill <> 'done');
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'dependency', o.project_id, o.id, 'delete', NULL, NULL
    FROM old_rows o WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = o.project_id)
        AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = o.project_id AND s.backfill <> 'done');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS dependencies_changes_insert ON dependencies;
CREATE TRIGGER dependencies_changes_insert AFTER INSERT ON dependencies REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dependencies_changes();
DROP TRIGGER IF EXISTS dependencies_changes_update ON dependencies;
CREATE TRIGGER dependencies_changes_update AFTER UPDATE ON dependencies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dependencies_changes();
DROP TRIGGER IF EXISTS dependencies_changes_delete ON dependencies;
CREATE TRIGGER dependencies_changes_delete AFTER DELETE ON dependencies REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dependencies_changes();

-- Assignments: as schema.sql's; a re-insert takes back the delete of the same transaction.
CREATE OR REPLACE FUNCTION task_assignees_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH cancelled AS (
      DELETE FROM changes c USING new_rows n
      WHERE c.entity = 'assignment' AND c.op = 'delete' AND c.seq < 0
        AND c.entity_id = n.task_id || ':' || n.member_id
        AND c.batch = pg_current_xact_id()::text::bigint
      RETURNING c.entity_id)
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'assignment', t.project_id,
      n.task_id || ':' || n.member_id, 'insert',
      jsonb_build_object('task_id', n.task_id, 'member_id', n.member_id), NULL
    FROM new_rows n JOIN tasks t ON t.id = n.task_id
    WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = t.project_id AND s.backfill <> 'done')
      AND n.task_id || ':' || n.member_id NOT IN (SELECT entity_id FROM cancelled);
  ELSE
    INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
    SELECT -nextval('changes_order'), change_batch(), 'assignment', t.project_id,
      o.task_id || ':' || o.member_id, 'delete', NULL, NULL
    FROM old_rows o JOIN tasks t ON t.id = o.task_id
    WHERE NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.project_id = t.project_id AND s.backfill <> 'done');
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS task_assignees_changes_insert ON task_assignees;
CREATE TRIGGER task_assignees_changes_insert AFTER INSERT ON task_assignees
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_assignees_changes();
DROP TRIGGER IF EXISTS task_assignees_changes_delete ON task_assignees;
CREATE TRIGGER task_assignees_changes_delete AFTER DELETE ON task_assignees
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_assignees_changes();

-- A project's backfill completes: one `reload` row for it.
CREATE OR REPLACE FUNCTION sync_state_changes() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO changes (seq, batch, entity, project_id, entity_id, op, data, fields)
  SELECT -nextval('changes_order'), change_batch(), 'project', n.project_id, n.project_id,
    'reload', NULL, NULL
  FROM new_rows n JOIN old_rows o ON o.project_id = n.project_id
  WHERE o.backfill <> 'done' AND n.backfill = 'done';
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS sync_state_changes ON sync_state;
CREATE TRIGGER sync_state_changes AFTER UPDATE ON sync_state
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sync_state_changes();

-- to version 10
-- Each polled item's change-rate evidence (issue 35), as schema.pg.sql makes it.
CREATE TABLE IF NOT EXISTS change_rates (
  item       text PRIMARY KEY,
  state      text NOT NULL,
  looked_at  timestamptz,
  updated_at timestamptz NOT NULL
);

-- to version 11
-- (SQLite's full-text index keeps no token counts; PostgreSQL's GIN index is unchanged.)

-- to version 12
-- (SQLite keeps a backfill's pages by reference; PostgreSQL keeps every page's rows.)
