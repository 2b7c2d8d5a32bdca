import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtRate } from '../lib/format.js';
import type { Columns } from '../lib/series.js';
import { timeLabel, timeSplits, timeStep, yLabel, yRange, ySplits } from '../lib/ticks.js';

/** One time tick per this many pixels at most. */
const PX_PER_TIME_TICK = 90;
const timeCount = (u: uPlot) =>
  Math.max(2, Math.floor(u.bbox.width / devicePixelRatio / PX_PER_TIME_TICK));

/** The hover read-out: the time and each line's value at the cursor's point. */
export function readout(columns: Columns, lines: readonly ChartLine[], idx: number): string {
  const t = columns[0][idx];
  if (t === undefined) return '';
  const values = lines.map((l, i) => `${l.label} ${fmtRate(columns[i + 1]?.[idx] ?? null)}/s`);
  return `${timeLabel(t)}: ${values.join(', ')}`;
}

export interface ChartLine {
  label: string;
  color: string;
}

interface Props {
  title: string;
  columns: Columns;
  lines: readonly ChartLine[];
  height?: number;
}

/** A small live line chart (uPlot) that follows its container's width. */
export function Chart({ title, columns, lines, height = 140 }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const key = lines.map((l) => `${l.label}:${l.color}`).join('|');
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => yRange(max) } },
      axes: [
        {
          stroke: 'currentColor',
          grid: { stroke: 'rgba(128,128,128,0.15)' },
          // Whole seconds, one line per label: uPlot's own ticks add a date line and sub-second steps.
          splits: (u, _i, min, max) => timeSplits(min, max, timeCount(u)),
          values: (u, ticks) => {
            const step = timeStep(u.scales.x.min ?? 0, u.scales.x.max ?? 0, timeCount(u));
            return ticks.map((t) => timeLabel(t, step));
          },
        },
        {
          stroke: 'currentColor',
          size: 48,
          grid: { stroke: 'rgba(128,128,128,0.15)' },
          splits: (_u, _i, _min, max) => ySplits(max),
          values: (u, ticks) => ticks.map((t) => yLabel(t, u.scales.y.max ?? 1)),
        },
      ],
      hooks: {
        setCursor: [(u) => setHover(u.cursor.idx ?? null)],
      },
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          width: 1.5,
          points: { show: false },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${fmtRate(v)}/s`),
        })),
      ],
    };
    const u = new uPlot(opts, columns as uPlot.AlignedData, el);
    plot.current = u;
    const ro = new ResizeObserver(() =>
      u.setSize({ width: Math.max(200, el.clientWidth), height }),
    );
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
    // The chart is rebuilt only when its lines change; data updates go through setData.
  }, [key, height]);

  useEffect(() => {
    plot.current?.setData(columns as uPlot.AlignedData);
  }, [columns]);

  const last = lines
    .map((l, i) => `${l.label} ${fmtRate(columns[i + 1]?.[columns[0].length - 1] ?? null)}/s`)
    .join(', ');
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div
        ref={box}
        class="chart-plot"
        role="img"
        aria-label={`${title}, last 15 minutes. Latest: ${last || 'no data yet'}`}
      />
      <p class="chart-readout" data-testid="chart-readout">
        {hover === null ? 'Point at the chart to read a value.' : readout(columns, lines, hover)}
      </p>
    </figure>
  );
}
