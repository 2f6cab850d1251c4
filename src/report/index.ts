/** Reporting over the mirror: the views of `schema.sql`, the `report` and the `export`. */
export * from './export.js';
export * from './format.js';
export * from './html/index.js';
export * from './open.js';
export * from './report.js';
export * from './views.js';
