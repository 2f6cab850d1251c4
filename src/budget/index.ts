/** The request budget: the governor (windows, quota, 429 pauses, reserve) and the daily plan. */
export * from './foreign.js';
export * from './governor.js';
export * from './plan.js';
export * from './rolling-window.js';
export * from './snapshot.js';
export * from './change-rate.js';
export * from './change-rates.js';
export * from './allocation.js';
