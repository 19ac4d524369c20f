/**
 * One chart of the dashboard, drawn by uPlot on a canvas. uPlot sizes and places its parts
 * through the CSSOM (`element.style.x = …`), which the console's CSP (`style-src 'self'`)
 * allows, unlike `style` attributes; its stylesheet is bundled with ours. The drawing is a
 * picture (`role="img"` named by a summary): the figures themselves are in the table beside
 * it. The hours on its axis are in the reader's language and time zone.
 */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import "./activity.css";
import { type Range, type Series, formatCount, hourLabel } from "./model";

/** Colours that read on a light and a dark background; the legend uses the same (by class). */
export const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#6b7280"];
export const colourOf = (index: number): string => PALETTE[index % PALETTE.length] ?? "#6b7280";

const HEIGHT = 220;

export function Chart({
  hours,
  series,
  range,
  label,
}: {
  hours: string[];
  series: Series[];
  range: Range;
  /** The text alternative of the drawing. */
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const ink = getComputedStyle(element).color || "#444";
    const grid = "rgba(128, 128, 128, 0.25)";
    const xs = hours.map((hour) => Math.floor(new Date(hour).getTime() / 1000));
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 280),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [
        {
          stroke: ink,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          values: (_u, splits) => splits.map((split) => hourLabel(new Date(split * 1000).toISOString(), range)),
          space: range === "24h" ? 60 : 110,
        },
        {
          stroke: ink,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          // Counts are whole: no tick between two whole numbers.
          splits: (_u, _axis, min, max) => wholeSplits(min, max),
          values: (_u, splits) => splits.map((split) => formatCount(split)),
        },
      ],
      series: [
        {},
        ...series.map((s, index) => ({
          label: s.label,
          stroke: colourOf(index),
          width: 2,
          points: { show: hours.length <= 48 },
        })),
      ],
    };
    const plot = new uPlot(options, [xs, ...series.map((s) => s.counts)], element);
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(element.clientWidth, 280), height: HEIGHT });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [hours, series, range]);
  return <div className="activity-chart" role="img" aria-label={label} ref={box} data-testid="activity-chart" />;
}

/** Whole-number ticks from 0 to `max`, at most about five. */
export function wholeSplits(min: number, max: number): number[] {
  const top = Math.max(1, Math.ceil(max));
  const step = Math.max(1, Math.ceil(top / 5));
  const splits: number[] = [];
  for (let value = Math.max(0, Math.floor(min)); value <= top; value += step) splits.push(value);
  return splits;
}
