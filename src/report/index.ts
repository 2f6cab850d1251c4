/** Reporting over the mirror: the views of `schema.sql`, the `report` and the `export`. */
export * from './export.js';
export * from './format.js';
export * from './html/index.js';
export * from './report.js';
export { REPORT_VIEW_NAMES, REPORT_VIEWS } from '../store/port.js';
