-- The steps that bring a PostgreSQL mirror made by an earlier projmirror to the current schema,
-- one section per version ("-- to version N"), each run once in the transaction that opens the
-- mirror (src/store/postgres/open.ts), oldest first. A fresh mirror is made from schema.pg.sql,
-- which already holds all of them. Keep each section equal to what schema.pg.sql makes.

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

-- Outbox items waiting in conflict: schema.sql's v_outbox_conflicts (see there).
CREATE VIEW v_outbox_conflicts AS
SELECT
  o.id                                  AS id,
  o.op                                  AS op,
  o.project_id                          AS project_id,
  o.target_id                           AS target_id,
  outbox_body(o.conflict) ->> 'fields'  AS fields,
  (outbox_body(o.conflict) -> 'base')::text   AS base,
  (outbox_body(o.conflict) -> 'local')::text  AS local,
  nullif((outbox_body(o.conflict) -> 'remote')::text, 'null') AS remote,
  o.last_error                          AS last_error,
  o.created_at                          AS queued_at
FROM outbox o
WHERE o.state = 'conflict' AND o.conflict IS NOT NULL;

-- to version 6
-- (SQLite's field discovery moved from per-row triggers into the writer; PostgreSQL keeps its
-- note_data_fields trigger beside the writer's notes, both ignoring duplicates: nothing to do.)

-- to version 7
-- v_tasks as it will be once the outbox drains: schema.sql's v_tasks_pending (see there), the
-- same rows.
CREATE VIEW v_tasks_pending AS
WITH
queued AS (
  SELECT o.id, o.project_id, o.target_id, o.op, outbox_body(o.body) AS body
  FROM outbox o
  WHERE o.state IN ('pending', 'sending') AND o.op IN ('task.update', 'task.set_assignees')
    AND o.target_id IS NOT NULL
),
checked AS (
  SELECT q.id, q.project_id, q.target_id,
    CASE WHEN q.op = 'task.update' AND jsonb_typeof(q.body -> 'name') = 'string'
      AND trim(q.body ->> 'name') <> '' THEN q.body ->> 'name' END AS name,
    CASE WHEN q.op = 'task.update' AND jsonb_typeof(q.body -> 'startDate') = 'string'
      THEN calendar_date(q.body ->> 'startDate') END AS start_date,
    CASE WHEN q.op = 'task.update' AND jsonb_typeof(q.body -> 'endDate') = 'string'
      THEN calendar_date(q.body ->> 'endDate') END AS end_date,
    CASE WHEN q.op = 'task.update' AND jsonb_typeof(q.body -> 'status') = 'string'
      AND trim(q.body ->> 'status') <> '' THEN q.body ->> 'status' END AS status,
    CASE WHEN q.op = 'task.update' AND jsonb_typeof(q.body -> 'progress') = 'number'
      THEN CASE WHEN (q.body -> 'progress')::double precision BETWEEN 0 AND 100
        THEN (q.body -> 'progress')::double precision END END AS progress,
    CASE WHEN jsonb_typeof(q.body -> 'assigneeIds') = 'array'
      THEN (q.body -> 'assigneeIds')::text END AS assignee_ids
  FROM queued q
),
items AS (
  SELECT c.id, c.project_id, c.target_id, c.name, c.start_date, c.end_date, c.assignee_ids,
    coalesce(c.status, CASE WHEN c.progress <= 0 THEN 'NotStarted' WHEN c.progress >= 100 THEN 'Done'
      WHEN c.progress IS NOT NULL THEN 'InProgress' END) AS status,
    coalesce(c.progress, CASE c.status WHEN 'Done' THEN 100 WHEN 'NotStarted' THEN 0 END)
      AS progress,
    c.progress IS NULL AND c.status = 'InProgress' AS keeps_progress
  FROM checked c
),
latest AS (
  SELECT i.*,
    max(CASE WHEN i.name IS NOT NULL THEN i.id END) OVER w AS name_id,
    max(CASE WHEN i.start_date IS NOT NULL THEN i.id END) OVER w AS start_id,
    max(CASE WHEN i.end_date IS NOT NULL THEN i.id END) OVER w AS end_id,
    max(CASE WHEN i.status IS NOT NULL THEN i.id END) OVER w AS status_id,
    max(CASE WHEN i.progress IS NOT NULL THEN i.id END) OVER w AS progress_id,
    max(CASE WHEN i.progress IS NOT NULL OR i.keeps_progress THEN i.id END) OVER w AS touch_id,
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
    coalesce(q.name, x.name) AS name,
    coalesce(q.start_date, x.start_date) AS start_date,
    coalesce(q.end_date, x.end_date) AS end_date,
    coalesce(q.status, x.status) AS status,
    CASE
      WHEN q.touch_id IS NULL THEN x.progress
      WHEN q.touch_id = q.progress_id THEN q.progress
      WHEN coalesce(q.progress, x.progress) < 1 THEN 1
      WHEN coalesce(q.progress, x.progress) > 99 THEN 99
      ELSE coalesce(q.progress, x.progress)
    END AS progress,
    q.assignee_ids AS pending_assignees,
    '[' || substr(
      CASE WHEN q.name IS NULL THEN '' ELSE ',"task_name"' END
      || CASE WHEN q.start_date IS NULL THEN '' ELSE ',"start_date"' END
      || CASE WHEN q.end_date IS NULL THEN '' ELSE ',"end_date"' END
      || CASE WHEN q.status IS NULL THEN '' ELSE ',"status"' END
      || CASE WHEN q.touch_id IS NULL THEN '' ELSE ',"progress"' END
      || CASE WHEN q.assignee_ids IS NULL THEN '' ELSE ',"assignee_ids"' END, 2) || ']'
      AS pending_fields
  FROM tasks x
  LEFT JOIN pending q ON q.project_id = x.project_id AND q.target_id = x.id
)
SELECT
  t.id                                               AS task_id,
  t.project_id                                       AS project_id,
  p.name                                             AS project_name,
  t.name                                             AS task_name,
  t.start_date                                       AS start_date,
  t.end_date                                         AS end_date,
  t.status                                           AS status,
  t.progress                                         AS progress,
  coalesce(n.ids, '[]')                              AS assignee_ids,
  coalesce(n.names, '[]')                            AS assignee_names,
  n.display                                          AS assignees,
  t.status IS NOT DISTINCT FROM 'Done'               AS is_done,
  coalesce(t.status IS DISTINCT FROM 'Done' AND t.end_date < (SELECT day FROM v_today), false)
                                                     AS is_overdue,
  (t.end_date - t.start_date + 1)::bigint            AS duration_days,
  t.updated_at                                       AS updated_at,
  t.synced_at                                        AS synced_at,
  t.pending_fields                                   AS pending_fields,
  t.pending_items::bigint                            AS pending_items
FROM applied t
JOIN projects p ON p.id = t.project_id
CROSS JOIN LATERAL (
  SELECT
    '[' || string_agg(to_json(a.member_id)::text, ',' ORDER BY a.member_id COLLATE "C") || ']'
      AS ids,
    '[' || string_agg(to_json(coalesce(m.name, a.member_id))::text, ','
      ORDER BY coalesce(m.name, a.member_id) COLLATE "C") || ']' AS names,
    string_agg(coalesce(m.name, a.member_id), ', ' ORDER BY coalesce(m.name, a.member_id) COLLATE "C")
      AS display
  -- Who will be assigned: the pending list where there is one, else the mirror's (per task, so
  -- that task_assignees' index serves it).
  FROM (
    SELECT s.member_id FROM task_assignees s
    WHERE s.task_id = t.id AND t.pending_assignees IS NULL
    UNION
    SELECT e.member_id FROM jsonb_array_elements_text(t.pending_assignees::jsonb) AS e(member_id)
  ) AS a
  LEFT JOIN members m ON m.project_id = t.project_id AND m.id = a.member_id
) AS n;

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
