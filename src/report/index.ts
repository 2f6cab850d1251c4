/** Reporting over the mirror: the views of `schema.sql`, the `report` and the `export`. */
export * from './export.js';
export * from './format.js';
export * from './html/index.js';
export * from './report.js';
export {
  REPORT_VIEW_NAMES,
  REPORT_VIEWS,
  type ReportViewName,
  type Row,
  type SqlValue,
  type ViewFilter,
  type ViewRows,
} from '../store/port.js';
