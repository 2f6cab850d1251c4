/// <reference lib="dom" />
/**
 * The HTML report in a real browser: a headless Chromium (the one `@sparticuz/chromium` ships
 * inside its npm package, or the system's named by CHROMIUM_PATH) loads the file from disk,
 * driven by playwright-core.
 */
import { syncWithCli } from '../fixtures/synced.js';
import { readFileSync, writeFileSync } from 'node:fs';
import bundledChromium from '@sparticuz/chromium';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { buildReportMirror, reportFixture } from './mirror.js';

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

/** What a screenshot shows, counted in a blank page's canvas: pixels by kind of colour. */
interface Seen {
  width: number;
  height: number;
  /** The first row (from the top) holding a pixel of each colour asked for; -1 when none. */
  firstRow: number[];
  /** Pixels of each colour asked for. */
  counts: number[];
  /** Distinct shades of orange (the heat map's colour, more or less opaque on white). */
  oranges: number;
  /** Dark and grey pixels: text. */
  dark: number;
}

/** Looks at a screenshot of `target` pixel by pixel, in `lab` (a blank page). */
async function look(
  lab: Page,
  target: Locator,
  colours: string[] = [],
  fromRow = 0,
): Promise<Seen> {
  const png = (await target.screenshot()).toString('base64');
  return lab.evaluate(
    async ({ png, colours, fromRow }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${png}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const wanted = colours.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
      const firstRow = wanted.map(() => -1);
      const counts = wanted.map(() => 0);
      const oranges = new Set<string>();
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
        const row = Math.floor(i / 4 / image.width);
        if (row < fromRow) continue;
        wanted.forEach(([wr, wg, wb], k) => {
          if (Math.abs(r - wr!) + Math.abs(g - wg!) + Math.abs(b - wb!) > 30) return;
          counts[k]! += 1;
          if (firstRow[k] === -1) firstRow[k] = row;
        });
        if (r > 200 && r - g > 25 && g - b > 10) oranges.add(`${r >> 3},${g >> 3},${b >> 3}`);
        if (r + g + b < 450) dark += 1;
      }
      return {
        width: image.width,
        height: image.height,
        firstRow,
        counts,
        oranges: oranges.size,
        dark,
      };
    },
    { png, colours, fromRow },
  );
}

/** How many pages a PDF has. */
function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?!s)/g) ?? []).length;
}

const ONE_DAY_TOKEN = 'glt_test_report_one_day_0123456789';

describe('report --html in headless Chromium', () => {
  // A browser per test, and a blank page in it to look at screenshots: the bundled Chromium runs
  // single-process, and a test that prints to PDF and closes its page leaves it unusable.
  let browser: Browser;
  let lab: Page;

  beforeEach(async () => {
    browser = await launchChromium();
    lab = await browser.newPage();
  }, 60_000);

  afterEach(async () => {
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

  it('shows what a person needs: an axis that fits, a legend for the heat map, one day said in words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const shots = process.env['REPORT_SHOTS'];
    const keep = async (target: Locator, name: string) => {
      if (shots) writeFileSync(join(shots, `${name}.png`), await target.screenshot());
    };

    // Four days of history: Alpha Tower has 6 tasks, so the status axis runs to 6, not to 10.
    const { file } = await buildReportMirror();
    const html = join(tempDir(), 'report.html');
    expect((await runCli(['report', '--db', file, '--html', html])).code).toBe(0);
    await page.goto(pathToFileURL(html).href);
    const alpha = page.locator('section.project').first();
    const status = alpha.locator('svg.chart').nth(1);
    await keep(status, 'status');
    expect(await status.locator('text').allTextContents()).toEqual(
      expect.arrayContaining(['0', '1', '2', '3', '4', '5', '6']),
    );
    // The top of the stacked bands, in pixels below the legend, against the top grid line: the
    // highest stack reaches it.
    const geometry = await status.evaluate((svg) => {
      const top = svg.getBoundingClientRect().top;
      const rows = (selector: string) =>
        Array.from(svg.querySelectorAll(selector)).map((e) => e.getBoundingClientRect());
      return {
        gridTop: Math.min(...rows('line').map((r) => r.top)) - top,
        legendBottom: Math.max(...rows(':scope > rect').map((r) => r.bottom)) - top,
        bands: Array.from(svg.querySelectorAll('polygon.mark')).map((p) => p.getAttribute('fill')!),
      };
    });
    const seen = await look(lab, status, geometry.bands, Math.ceil(geometry.legendBottom) + 1);
    const stackTop = Math.min(...seen.firstRow.filter((row) => row >= 0));
    expect(Math.abs(stackTop - geometry.gridTop)).toBeLessThanOrEqual(3);
    expect(seen.counts.every((count) => count > 100)).toBe(true);

    // The heat map's legend shows, in pixels, shades from light to dark, labelled 0 to the most.
    const heat = alpha.locator('svg.chart').nth(2);
    await keep(heat, 'heat-map');
    const legend = heat.locator('g.legend');
    await expect(legend.isVisible()).resolves.toBe(true);
    const labels = await legend.locator('text').allTextContents();
    expect(labels[0]).toBe('task-days/week');
    const most = Math.max(
      ...(await heat.locator('rect.mark title').allTextContents()).map((t) =>
        Number(/(\d+) task-days$/.exec(t)![1]),
      ),
    );
    expect(labels.slice(1).map(Number)).toEqual([
      0,
      Math.round(most / 4),
      Math.round(most / 2),
      Math.round((most * 3) / 4),
      most,
    ]);
    const legendSeen = await look(lab, legend);
    expect(legendSeen.oranges).toBeGreaterThanOrEqual(4);
    expect(legendSeen.dark).toBeGreaterThan(20);

    // One sync, one day of history: the burndown says so, and draws no line.
    const sim = await startTestSimulator({ fixture: reportFixture(), tokens: [ONE_DAY_TOKEN] });
    const { dir, db: oneDay, sync } = await syncWithCli(sim, ONE_DAY_TOKEN, 'one-day.sqlite');
    expect(sync.code).toBe(0);
    const oneDayHtml = join(dir, 'one-day.html');
    expect((await runCli(['report', '--db', oneDay, '--html', oneDayHtml])).code).toBe(0);
    await page.goto(pathToFileURL(oneDayHtml).href);
    const burndown = page.locator('section.project').first().locator('svg.chart').first();
    await keep(burndown, 'burndown-one-day');
    const words = await burndown.locator('text').allTextContents();
    expect(words[0]).toBe('Only one day of history so far');
    expect(words[1]).toMatch(/^\d{4}-\d{2}-\d{2}: 4 open tasks, \d+ open task-days$/);
    expect(await burndown.locator('.mark').count()).toBe(0);
    const oneDaySeen = await look(lab, burndown, ['#3b82f6', '#e8a317']);
    expect(oneDaySeen.counts).toEqual([0, 0]);
    expect(oneDaySeen.dark).toBeGreaterThan(300);
    await page.close();
  }, 90_000);
});
