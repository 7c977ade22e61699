/**
 * Opens a file in Debian's Chromium, headless (driven by playwright-core; no browser is downloaded),
 * and reports what a reader would see: the screenshot's size and how many colours it has (decoded by
 * the browser itself), the lane labels and the number of fencer steps drawn.
 */
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

/** Debian's package `chromium` (installed by .ci/run). */
export const CHROMIUM = '/usr/bin/chromium';

// Without the background-networking flags Chromium keeps trying hosts this machine cannot reach.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Rendered {
  readonly screenshotBytes: number;
  /** Distinct colours in the screenshot (a blank page has one). */
  readonly distinctColours: number;
  readonly laneLabels: readonly string[];
  readonly steps: number;
}

export async function renderInBrowser(file: string): Promise<Rendered> {
  // Playwright gives each launch a new, empty user data dir.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    // The viewport, not the full page: Chromium cannot measure a bare SVG document for a full-page shot.
    const png = await page.screenshot();
    const laneLabels = await page.$$eval('text.lane-label', (els) => els.map((e) => e.textContent ?? ''));
    const steps = await page.$$eval('text.mark-step', (els) => els.length);
    const decoder = await browser.newPage();
    // Runs in the page (a string: the project's TypeScript has no DOM types): decode, count colours.
    const distinctColours = await decoder.evaluate<number>(`(async () => {
      const image = new Image();
      image.src = 'data:image/png;base64,${png.toString('base64')}';
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, image.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length; i += 4) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      return colours.size;
    })()`);
    return { screenshotBytes: png.length, distinctColours, laneLabels, steps };
  } finally {
    await browser.close();
  }
}
