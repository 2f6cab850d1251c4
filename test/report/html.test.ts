/// <reference lib="dom" />
/**
 * The HTML report in a real browser: the system's headless Chromium (Debian's `chromium`, which
 * .ci/run installs when it is missing) loads the file from disk, driven by playwright-core.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { buildReportMirror } from './mirror.js';

/** The system Chromium: CHROMIUM_PATH, else the first of the usual names on PATH. */
function chromiumPath(): string {
  const candidates = [process.env['CHROMIUM_PATH'], 'chromium', 'chromium-browser'];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '') continue;
    if (candidate.includes('/') && existsSync(candidate)) return candidate;
    try {
      return execFileSync('which', [candidate], { encoding: 'utf8' }).trim();
    } catch {
      // not on PATH: try the next name
    }
  }
  throw new Error(
    'no Chromium: install Debian package chromium (.ci/run does) or set CHROMIUM_PATH',
  );
}

/** How many pages a PDF has. */
function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?!s)/g) ?? []).length;
}

describe('report --html in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('loads offline with no console error and no request, draws every chart, prints a page per project', async () => {
    const { file } = await buildReportMirror();
    const html = join(tempDir(), 'report.html');
    const run = await runCli(['report', '--db', file, '--html', html]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${html}\t2 projects\n`);
    const text = readFileSync(html, 'utf8');
    expect(text).not.toMatch(/<script|<link|src=|url\(/i);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    const url = pathToFileURL(html).href;
    await page.goto(url, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);

    await expect(page.title()).resolves.toMatch(/^projmirror report, \d{4}-\d{2}-\d{2}$/);
    expect(await page.locator('section.project').count()).toBe(2);
    expect(await page.locator('section.project h2').allTextContents()).toEqual([
      'Alpha Tower p_alpha',
      'Bravo Bridge p_bravo',
    ]);
    // Three charts per project: burndown, status over time, workload heat map.
    const charts = page.locator('svg.chart');
    expect(await charts.count()).toBe(6);
    const drawn = await charts.evaluateAll((svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const marks = Array.from(svg.querySelectorAll('.mark')).map((mark) =>
          (mark as SVGGraphicsElement).getBBox(),
        );
        return {
          width: Math.round(box.width),
          height: Math.round(box.height),
          marks: marks.length,
          markArea: marks.reduce((sum, b) => sum + b.width * b.height, 0),
        };
      }),
    );
    for (const chart of drawn) {
      expect(chart.width).toBeGreaterThan(300);
      expect(chart.height).toBeGreaterThan(120);
      expect(chart.marks).toBeGreaterThan(0);
      expect(chart.markArea).toBeGreaterThan(1_000);
    }
    // A screenshot of each chart holds far more than one of a blank box of the same size.
    const blank = await page.evaluate(() => {
      const box = document.createElement('div');
      box.id = 'blank';
      box.style.cssText = 'width:600px;height:275px;background:#fff';
      document.body.append(box);
      return true;
    });
    expect(blank).toBe(true);
    const blankBytes = (await page.locator('#blank').screenshot()).length;
    for (let i = 0; i < 6; i++) {
      const shot = await charts.nth(i).screenshot();
      expect(shot.length, `chart ${i}`).toBeGreaterThan(blankBytes * 3);
    }
    const overdueRows = await page.locator('section.project table tbody tr').count();
    expect(overdueRows).toBe(2);

    await page.evaluate(() => document.getElementById('blank')?.remove());
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
    expect(pdfPages(pdf)).toBe(2);
    await page.close();
  }, 90_000);
});
