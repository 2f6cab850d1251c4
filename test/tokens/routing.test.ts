import { describe, expect, it } from 'vitest';
import { FAILOVER_WAIT_MS, ProjectRouting, type TokenBudget } from '../../src/tokens/index.js';

/** Budgets by label: `left` requests, no wait unless given. */
function budgets(entries: Record<string, Partial<TokenBudget>>): Map<string, TokenBudget> {
  return new Map(
    Object.entries(entries).map(([label, budget]) => [label, { left: 5000, waitMs: 0, ...budget }]),
  );
}

/** a sees p_1, p_2; b sees p_2, p_3; c sees all four. */
function routing(): ProjectRouting {
  const routing = new ProjectRouting(['a', 'b', 'c']);
  routing.listed('a', ['p_1', 'p_2']);
  routing.listed('b', ['p_2', 'p_3']);
  routing.listed('c', ['p_1', 'p_2', 'p_3', 'p_4']);
  return routing;
}

describe('project routing', () => {
  it('spreads projects by budget left per project, and keeps them while the token works', () => {
    const r = routing();
    const even = budgets({ a: {}, b: {}, c: {} });
    r.assignAll(['p_1', 'p_2', 'p_3', 'p_4'], even);
    expect(r.assignments()).toEqual({ p_1: 'a', p_2: 'b', p_3: 'c', p_4: 'c' });
    // Sticky: a token with less left keeps its project while it works.
    const poorA = budgets({ a: { left: 10 }, b: {}, c: {} });
    expect(r.choose('p_1', poorA)).toBe('a');
    // A new project goes where the most is left per project served.
    r.listed('b', ['p_2', 'p_3', 'p_5']);
    r.listed('c', ['p_1', 'p_2', 'p_3', 'p_4', 'p_5']);
    expect(r.choose('p_5', budgets({ a: {}, b: { left: 3000 }, c: { left: 5000 } }))).toBe('c');
  });

  it('hands a project over when its token is refused, loses it, or would wait past the failover bound', () => {
    const even = budgets({ a: {}, b: {}, c: {} });
    const refused = routing();
    refused.assignAll(['p_1', 'p_2', 'p_3', 'p_4'], even);
    refused.handOver('a', 'p_1', 'refused');
    expect(refused.isRefused('a')).toBe(true);
    expect(refused.choose('p_1', even, new Set(['a']))).toBe('c');
    expect(refused.choose('p_1', even)).toBe('c');
    refused.listed('a', ['p_1', 'p_2']);
    expect(refused.isRefused('a')).toBe(false);

    const hidden = routing();
    hidden.assignAll(['p_2'], even);
    expect(hidden.tokenOf('p_2')).toBe('a');
    hidden.handOver('a', 'p_2', 'hidden');
    expect(hidden.sees('a', 'p_2')).toBe(false);
    expect(hidden.choose('p_2', even)).toBe('b');

    const spent = routing();
    spent.assignAll(['p_1'], even);
    const aWaits = budgets({ a: { waitMs: FAILOVER_WAIT_MS + 1 }, b: {}, c: {} });
    expect(spent.choose('p_1', aWaits)).toBe('c');
    // A burst window's wait never moves a project.
    expect(spent.choose('p_1', budgets({ a: {}, b: {}, c: { waitMs: 59_000 } }))).toBe('c');
  });

  it('looks for a project no token is known to see through every token, and names none once all were tried', () => {
    const r = routing();
    const even = budgets({ a: {}, b: {}, c: {} });
    expect(r.choose('p_9', even)).toBe('a');
    expect(r.choose('p_9', even, new Set(['a']))).toBe('b');
    expect(r.choose('p_9', even, new Set(['a', 'b', 'c']))).toBeUndefined();
    r.succeeded('c', 'p_9');
    expect(r.sees('c', 'p_9')).toBe(true);
  });

  it('restores a saved routing for the tokens still configured', () => {
    const r = new ProjectRouting(['a', 'c']);
    r.restore({ projects: { p_1: 'c', p_2: 'b' } });
    expect(r.assignments()).toEqual({ p_1: 'c' });
    expect(r.choose('p_1', budgets({ a: { left: 5000 }, c: { left: 1 } }))).toBe('c');
  });

  it('never tries a token known not to see the project, once those that see it were tried', () => {
    const r = routing();
    const even = budgets({ a: {}, b: {}, c: {} });
    // p_3 is seen by b and c only: a would spend a request on a refusal.
    expect(r.choose('p_3', even, new Set(['b', 'c']))).toBeUndefined();
    // A project no token is known to see may be tried through any token.
    expect(r.choose('p_9', even, new Set(['a', 'b']))).toBe('c');
  });
});
