/**
 * A time chart drawn by uPlot on a canvas, in the page's colours (read from
 * its CSS variables, so light and dark both read well, and drawn again when
 * the system's scheme changes) and as wide as its container (drawn again
 * when that changes, down to a phone's width). The canvas is a picture for
 * the eye: the page gives the same figures as text beside it.
 */
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  /** A CSS variable of the page (`--accent`). */
  color: string;
  dash?: number[];
}

export interface ChartProps {
  /** Each point's time, in seconds since the epoch. */
  times: number[];
  series: ChartSeries[];
  /** The value axis's unit, shown after its numbers (`ms`), or nothing. */
  unit?: string;
}

const HEIGHT = 220;

export function Chart({ times, series, unit }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let plot: uPlot | undefined;
    const draw = () => {
      plot?.destroy();
      const css = getComputedStyle(element);
      const color = (name: string) => css.getPropertyValue(name).trim() || 'gray';
      const axis = {
        stroke: color('--muted'),
        grid: { stroke: color('--line'), width: 1 },
        ticks: { stroke: color('--line'), width: 1 },
      };
      plot = new uPlot(
        {
          width: Math.max(element.clientWidth, 240),
          height: HEIGHT,
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
          // Room above the highest point, so it is never drawn on the chart's edge.
          scales: {
            x: { time: true },
            y: { range: (_u, _min, max) => [0, Math.max(max * 1.15, 1)] },
          },
          axes: [
            axis,
            {
              ...axis,
              size: 64,
              values: (_u, ticks) => ticks.map((tick) => tickText(tick, unit)),
            },
          ],
          series: [
            {},
            ...series.map((s) => ({
              label: s.label,
              stroke: color(s.color),
              width: 2,
              spanGaps: false,
              // A series with gaps shows its points, so one alone between empty periods still shows.
              points: { show: s.values.includes(null), size: 7, fill: color(s.color) },
              ...(s.dash ? { dash: s.dash } : {}),
            })),
          ],
        },
        [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
        element,
      );
    };
    draw();
    const resized = new ResizeObserver(() =>
      plot?.setSize({ width: Math.max(element.clientWidth, 240), height: HEIGHT }),
    );
    resized.observe(element);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', draw);
    return () => {
      resized.disconnect();
      scheme.removeEventListener('change', draw);
      plot?.destroy();
    };
  }, [times, series, unit]);
  return <div class="chart" ref={box} aria-hidden="true" />;
}

/** `250 ms`, `1.5 s`; counts as they are. */
function tickText(tick: number, unit: string | undefined): string {
  if (unit !== 'ms') return `${tick}`;
  return tick >= 1000 ? `${tick / 1000} s` : `${tick} ms`;
}
