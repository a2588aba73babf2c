import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import type { SqlResult } from '../api.ts';

Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
);

const NUMERIC = new Set(['integer', 'number', 'decimal']);
const COLORS = ['#2f6fde', '#e0793a', '#3a9d5d', '#9b59b6'];

/**
 * How a grouped answer is drawn, or null when it is not one: the first column is the category (or the time of a
 * DATE_TRUNC) and the numeric columns after it are the series; bars for categories, a line over time.
 */
export function chartOf(
  page: SqlResult,
): { kind: 'bar' | 'line'; labels: string[]; series: { name: string; values: number[] }[] } | null {
  const [first, ...rest] = page.meta.columns;
  const series = rest.filter((c) => NUMERIC.has(c.type));
  if (!first || series.length === 0 || page.data.length === 0 || page.data.length > 1000) return null;
  const time = first.type === 'datetime';
  return {
    kind: time ? 'line' : 'bar',
    labels: page.data.map((row) => {
      const key = row[first.name];
      if (key === null || key === undefined) return '(null)';
      return time ? String(key).replace(/T00:00:00(\.000)?Z$/, '') : String(key);
    }),
    series: series.map((c) => ({ name: c.name, values: page.data.map((row) => Number(row[c.name] ?? 0)) })),
  };
}

/** The chart of a grouped SQL answer (chart.js on a canvas). */
export function SqlChart({ page }: { page: SqlResult }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const shape = chartOf(page);
  useEffect(() => {
    if (!canvas.current || !shape) return;
    const chart = new Chart(canvas.current, {
      type: shape.kind,
      data: {
        labels: shape.labels,
        datasets: shape.series.map((s, i) => ({
          label: s.name,
          data: s.values,
          backgroundColor: COLORS[i % COLORS.length],
          borderColor: COLORS[i % COLORS.length],
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { position: 'bottom' } },
      },
    });
    return () => chart.destroy();
  }, [page]);
  if (!shape) return null;
  return (
    <div class="sql-chart" data-testid="sql-chart" data-chart={shape.kind}>
      <canvas ref={canvas} />
    </div>
  );
}
