/**
 * The incident picture as written by --timeline-out, opened in a real headless Chromium: an HTML page
 * and a bare SVG, each with every lane labelled, the steps and evidence numbered, and something drawn.
 * (A picture from a real fence and from `status NODE` is rendered the same way in access.test.ts.)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTimeline } from '../../cli/timeline/write.js';
import { type IncidentTimeline, lanesFromSamples, type Sample } from '../../lib/app/timeline/model.js';
import { renderInBrowser } from '../support/browser.js';

const t = (s: number) => new Date(Date.UTC(2026, 10, 30, 3, 0, s)).toISOString();
const samples: Sample[] = [
  {
    at: t(0),
    lanes: {
      node: { state: 'NotReady', tone: 'failing' },
      instance: { state: 'running', tone: 'healthy' },
      pods: { state: '1 terminating', tone: 'failing' },
      volumeattachments: { state: '1 attached', tone: 'healthy' },
      disks: { state: 'vol-1 attached', tone: 'healthy' },
    },
  },
  { at: t(3), lanes: { instance: { state: 'stopping', tone: 'moving' } } },
  {
    at: t(9),
    lanes: {
      instance: { state: 'stopped', tone: 'off' },
      node: { state: 'NotReady, out-of-service', tone: 'fenced' },
    },
  },
  {
    at: t(11),
    lanes: {
      pods: { state: 'none', tone: 'none' },
      volumeattachments: { state: '1 detaching', tone: 'moving' },
    },
  },
  {
    at: t(13),
    lanes: {
      volumeattachments: { state: 'none', tone: 'none' },
      disks: { state: 'none attached', tone: 'none' },
    },
  },
];
const timeline: IncidentTimeline = {
  title: 'Fencing node-a (cluster prod) <&> "quoted"',
  subtitle: 'fence run r-1: fenced after 14.0 s',
  from: t(0),
  to: t(14),
  lanes: lanesFromSamples(samples, t(14), { node: 'node-a', instance: 'i-0abc' }),
  marks: [
    { at: t(1), kind: 'step', label: 'PowerOff: i-0abc: stop requested; instance was running' },
    { at: t(9), kind: 'evidence', lane: 'instance', label: 'proof of off: i-0abc stopped' },
    { at: t(9), kind: 'step', label: 'Taint: added the out-of-service taint' },
    { at: t(13), kind: 'step', label: 'Fenced: volumes released' },
  ],
};

describe('the incident picture in a real browser', () => {
  it.each(['incident.html', 'incident.svg'])('%s: every lane labelled, the steps drawn', async (name) => {
    const file = join(mkdtempSync(join(tmpdir(), 'fencer-picture-')), name);
    writeTimeline(file, timeline);

    const rendered = await renderInBrowser(file);

    expect(rendered.laneLabels).toEqual([
      'Node node-a',
      'Instance i-0abc',
      'Pods',
      'VolumeAttachments',
      'Disks',
    ]);
    expect(rendered.steps).toBe(3);
    expect(rendered.screenshotBytes).toBeGreaterThan(20_000);
    expect(rendered.distinctColours).toBeGreaterThan(4);
    // Self-contained: nothing to fetch, and the title escaped, not interpreted.
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/(src|href)="http/);
    expect(text).toContain('Fencing node-a (cluster prod) &lt;&amp;&gt; &quot;quoted&quot;');
  });
});
