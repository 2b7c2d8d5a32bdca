import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtRate } from '../lib/format.js';
import type { Columns } from '../lib/series.js';

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

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [
        { stroke: 'currentColor', grid: { stroke: 'rgba(128,128,128,0.15)' } },
        {
          stroke: 'currentColor',
          size: 48,
          grid: { stroke: 'rgba(128,128,128,0.15)' },
          values: (_u, ticks) => ticks.map((t) => fmtRate(t)),
        },
      ],
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
    </figure>
  );
}
