/** The HTML report: data from the views, inline SVG charts, one self-contained page. */
export * from './data.js';
export * from './page.js';
