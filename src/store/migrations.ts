/**
 * Schema versions. Version 1 is `schema.sql` as a whole; each later entry is the SQL that moves a
 * mirror from the version before it, applied in order inside one transaction.
 */
export const MIGRATIONS: readonly string[] = [];

/** The version a freshly created mirror is at: `schema.sql` plus every migration. */
export const SCHEMA_VERSION = 1 + MIGRATIONS.length;
