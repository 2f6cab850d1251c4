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
-- Each polled item's change-rate evidence (issue 35), as schema.pg.sql makes it.
CREATE TABLE IF NOT EXISTS change_rates (
  item       text PRIMARY KEY,
  state      text NOT NULL,
  looked_at  timestamptz,
  updated_at timestamptz NOT NULL
);
