/**
 * Draws an incident timeline as one self-contained SVG (no fonts, scripts or links to fetch): a time
 * axis, a row per lane with its states as coloured bars, the fencer's steps as numbered dashed lines
 * across every lane, evidence as numbered diamonds on its lane, and a numbered legend underneath.
 */
import type { IncidentTimeline, Mark, Tone } from '../../lib/app/timeline/model.js';

const WIDTH = 1200;
const LABEL_WIDTH = 270;
const RIGHT = 24;
const LANES_TOP = 96;
const LANE_HEIGHT = 46;
const BAR_HEIGHT = 30;
const LEGEND_LINE = 18;
/** Legend lines longer than this are cut (the full text is the mark's tooltip). */
const LEGEND_CHARS = 160;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const FILL: Readonly<Record<Tone, string>> = {
  healthy: '#2e7d32',
  failing: '#c62828',
  fenced: '#6a1b9a',
  off: '#424242',
  moving: '#ef6c00',
  none: '#e0e0e0',
  unknown: '#ffffff',
};
const INK: Readonly<Record<Tone, string>> = {
  healthy: '#ffffff',
  failing: '#ffffff',
  fenced: '#ffffff',
  off: '#ffffff',
  moving: '#ffffff',
  none: '#424242',
  unknown: '#757575',
};

const xml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** Ticks every 1, 2, 5, 10 ... seconds: the smallest step giving at most ten. */
function tickStep(seconds: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];
  return steps.find((s) => seconds / s <= 10) ?? 86400;
}

const offsetLabel = (seconds: number): string =>
  seconds < 120
    ? `+${seconds}s`
    : seconds < 7200
      ? `+${Math.round(seconds / 60)}m`
      : `+${Math.round(seconds / 3600)}h`;

/** The picture as SVG markup, `standalone` with its XML namespace for a .svg file. */
export function renderTimelineSvg(timeline: IncidentTimeline): string {
  const from = Date.parse(timeline.from);
  const span = Math.max(1000, Date.parse(timeline.to) - from);
  const x = (iso: string): number =>
    LABEL_WIDTH +
    (Math.min(Math.max(Date.parse(iso) - from, 0), span) / span) * (WIDTH - LABEL_WIDTH - RIGHT);
  const laneY = (i: number): number => LANES_TOP + i * LANE_HEIGHT;
  const lanesBottom = laneY(timeline.lanes.length);
  const marks = [...timeline.marks].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const height = lanesBottom + 40 + marks.length * LEGEND_LINE + 16;
  const out: string[] = [];

  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" role="img">`,
    `<title>${xml(timeline.title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="30" font-size="20" font-weight="bold" fill="#212121">${xml(timeline.title)}</text>`,
    `<text x="16" y="52" font-size="13" fill="#616161">${xml(timeline.subtitle)} · from ${xml(timeline.from)}</text>`,
  );

  // The time axis: seconds (or minutes) since the picture's start.
  const step = tickStep(span / 1000);
  for (let s = 0; s * 1000 <= span; s += step) {
    const tx = LABEL_WIDTH + ((s * 1000) / span) * (WIDTH - LABEL_WIDTH - RIGHT);
    out.push(
      `<line x1="${tx}" y1="${LANES_TOP - 12}" x2="${tx}" y2="${lanesBottom}" stroke="#eeeeee"/>`,
      `<text x="${tx}" y="${LANES_TOP - 16}" font-size="11" text-anchor="middle" fill="#757575">${offsetLabel(s)}</text>`,
    );
  }

  timeline.lanes.forEach((lane, i) => {
    const y = laneY(i) + (LANE_HEIGHT - BAR_HEIGHT) / 2;
    out.push(
      `<g class="lane" data-lane="${lane.key}">`,
      `<text class="lane-label" x="16" y="${y + BAR_HEIGHT / 2 + 5}" font-size="14" font-weight="bold" fill="#212121">${xml(lane.label)}</text>`,
    );
    if (lane.spans.length === 0) {
      out.push(
        `<text x="${LABEL_WIDTH + 6}" y="${y + BAR_HEIGHT / 2 + 4}" font-size="12" fill="#9e9e9e">not read</text>`,
      );
    }
    for (const s of lane.spans) {
      const x1 = x(s.from);
      const w = Math.max(2, x(s.to) - x1);
      const stroke = s.tone === 'unknown' ? ' stroke="#9e9e9e" stroke-dasharray="4 3"' : '';
      out.push(
        `<rect x="${x1}" y="${y}" width="${w}" height="${BAR_HEIGHT}" rx="3" fill="${FILL[s.tone]}"${stroke}><title>${xml(`${lane.label}: ${s.state} (${s.from} → ${s.to})`)}</title></rect>`,
      );
      if (w > s.state.length * 7 + 10) {
        out.push(
          `<text x="${x1 + 6}" y="${y + BAR_HEIGHT / 2 + 4}" font-size="12" fill="${INK[s.tone]}">${xml(s.state)}</text>`,
        );
      }
    }
    out.push('</g>');
  });

  marks.forEach((mark, i) => {
    out.push(...markShapes(mark, i + 1, x(mark.at), timeline, laneY, lanesBottom));
  });

  // The legend: every mark, numbered, with its offset from the start.
  out.push(
    `<text x="16" y="${lanesBottom + 28}" font-size="14" font-weight="bold" fill="#212121">Fencer steps, evidence and events</text>`,
  );
  marks.forEach((mark, i) => {
    const seconds = ((Date.parse(mark.at) - from) / 1000).toFixed(1);
    const kind = mark.kind === 'step' ? 'step' : mark.kind === 'evidence' ? 'evidence' : 'event';
    out.push(
      `<text class="mark-${kind}" x="16" y="${lanesBottom + 48 + i * LEGEND_LINE}" font-size="12" fill="#212121">${i + 1}. +${seconds}s  [${kind}] ${xml(cut(mark.label, LEGEND_CHARS))}<title>${xml(mark.label)}</title></text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}

function markShapes(
  mark: Mark,
  n: number,
  mx: number,
  timeline: IncidentTimeline,
  laneY: (i: number) => number,
  lanesBottom: number,
): string[] {
  const tip = `<title>${xml(`${n}. ${mark.label} (${mark.at})`)}</title>`;
  const laneIndex = mark.lane ? timeline.lanes.findIndex((l) => l.key === mark.lane) : -1;
  if (mark.kind === 'step' || laneIndex < 0) {
    const color = mark.kind === 'step' ? '#1565c0' : '#757575';
    return [
      `<line x1="${mx}" y1="${LANES_TOP - 4}" x2="${mx}" y2="${lanesBottom}" stroke="${color}" stroke-dasharray="3 3"/>`,
      `<circle cx="${mx}" cy="${LANES_TOP - 4}" r="8" fill="${color}">${tip}</circle>`,
      `<text x="${mx}" y="${LANES_TOP}" font-size="10" text-anchor="middle" fill="#ffffff">${n}</text>`,
    ];
  }
  const cy = laneY(laneIndex) + LANE_HEIGHT / 2;
  return [
    `<path d="M ${mx} ${cy - 11} L ${mx + 11} ${cy} L ${mx} ${cy + 11} L ${mx - 11} ${cy} Z" fill="#fdd835" stroke="#212121">${tip}</path>`,
    `<text x="${mx}" y="${cy + 4}" font-size="10" text-anchor="middle" fill="#212121">${n}</text>`,
  ];
}

/** The picture in a self-contained HTML page (the SVG inline, nothing to fetch). */
export function renderTimelineHtml(timeline: IncidentTimeline): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${xml(timeline.title)}</title>
<style>body{margin:24px;font-family:Helvetica,Arial,sans-serif;color:#212121}svg{max-width:100%;height:auto}</style>
</head>
<body>
${renderTimelineSvg(timeline)}
<p>Made by kube-fencer. Colours: green healthy, red failing, purple fenced (out-of-service), dark grey off, orange changing, light grey none.</p>
</body>
</html>
`;
}
