/// <reference lib="dom" />
/**
 * The HTML report in a real browser: a headless Chromium (the one `@sparticuz/chromium` ships
 * inside its npm package, or the system's named by CHROMIUM_PATH) loads the file from disk,
 * driven by playwright-core.
 */
import { readFileSync } from 'node:fs';
import bundledChromium from '@sparticuz/chromium';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { buildReportMirror } from './mirror.js';

/**
 * The browser: `CHROMIUM_PATH` when set (a system Chromium, with the flags a root user needs),
 * else the Chromium that npm brought inside `@sparticuz/chromium`, with its own flags.
 */
async function launchChromium(): Promise<Browser> {
  const system = process.env['CHROMIUM_PATH'];
  if (system !== undefined && system !== '') {
    return chromium.launch({ executablePath: system, args: ['--no-sandbox'] });
  }
  return chromium.launch({
    executablePath: await bundledChromium.executablePath(),
    args: bundledChromium.args,
  });
}

/** How many pages a PDF has. */
function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?!s)/g) ?? []).length;
}

describe('report --html in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
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
