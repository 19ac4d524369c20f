/**
 * The activity dashboard's data (`GET /admin/activity?range=24h|7d`,
 * docs/activity-dashboard.md) and the pure rules of its screen: which charts there are, the
 * series each one draws (named in the reader's language), their totals, and whether a range
 * holds anything at all.
 */
import { get } from "../../../api/client";
import { intl, t } from "../../../i18n";

export const ACTIVITY_API = "/admin/activity";
export const RANGES = ["24h", "7d"] as const;
export type Range = (typeof RANGES)[number];

export interface SigninSeries {
  method: string;
  outcome: string;
  counts: number[];
  total: number;
}

export interface Activity {
  range: Range;
  /** Hour starts in UTC, oldest first; every `counts` is aligned with them. */
  hours: string[];
  signins: SigninSeries[];
  throttled: { counts: number[]; total: number };
  tokens: { grant: string; counts: number[]; total: number }[];
  backchannel: { status: string; counts: number[]; total: number }[];
  activeSessions: number;
  generatedAt: string;
}

export function rangeOf(value: string | null): Range {
  return value === "7d" ? "7d" : "24h";
}

export const loadActivity = (range: Range, signal?: AbortSignal): Promise<Activity> =>
  get<Activity>(ACTIVITY_API, { range }, signal);

/** One line of a chart: its name, its figure per hour and their sum. */
export interface Series {
  key: string;
  label: string;
  counts: number[];
  total: number;
}

export type ChartId = "signins" | "throttled" | "tokens" | "backchannel";

export interface Chart {
  id: ChartId;
  title: string;
  /** What the chart counts, for the text alternative of the drawing. */
  series: Series[];
}

/** A known code's words, or the code itself (a method or grant added later still shows). */
function named(prefix: string, code: string): string {
  const id = `${prefix}.${code}`;
  const text = t(id);
  return text === id ? code : text;
}

export const methodName = (method: string): string => named("admin-activity.method", method);
export const outcomeName = (outcome: string): string => named("admin-activity.outcome", outcome);
export const grantName = (grant: string): string => named("admin-activity.grant", grant);
export const statusName = (status: string): string => named("admin-activity.status", status);

const sum = (counts: readonly number[]): number => counts.reduce((a, b) => a + b, 0);

/** The four charts of the dashboard, their series in the API's order. */
export function chartsOf(activity: Activity): Chart[] {
  return [
    {
      id: "signins",
      title: t("admin-activity.chart.signins"),
      series: activity.signins.map((s) => ({
        key: `${s.method}.${s.outcome}`,
        label: t("admin-activity.series.signin", { method: methodName(s.method), outcome: outcomeName(s.outcome) }),
        counts: s.counts,
        total: s.total ?? sum(s.counts),
      })),
    },
    {
      id: "throttled",
      title: t("admin-activity.chart.throttled"),
      series: [
        {
          key: "throttled",
          label: t("admin-activity.series.throttled"),
          counts: activity.throttled.counts,
          total: activity.throttled.total ?? sum(activity.throttled.counts),
        },
      ],
    },
    {
      id: "tokens",
      title: t("admin-activity.chart.tokens"),
      series: activity.tokens.map((s) => ({
        key: s.grant,
        label: grantName(s.grant),
        counts: s.counts,
        total: s.total ?? sum(s.counts),
      })),
    },
    {
      id: "backchannel",
      title: t("admin-activity.chart.backchannel"),
      series: activity.backchannel.map((s) => ({
        key: s.status,
        label: statusName(s.status),
        counts: s.counts,
        total: s.total ?? sum(s.counts),
      })),
    },
  ];
}

/** True when no series of the chart counted anything in the range. */
export function isEmpty(chart: Chart): boolean {
  return chart.series.every((s) => s.total === 0 && s.counts.every((n) => n === 0));
}

/** An hour start in the reader's language and time zone ("Sat 05:00", "28/11, 05:00"). */
export function hourLabel(hour: string, range: Range): string {
  const date = new Date(hour);
  return range === "24h"
    ? intl().formatTime(date, { hour: "numeric", minute: "2-digit" })
    : intl().formatDate(date, { weekday: "short", day: "numeric", month: "short", hour: "numeric", minute: "2-digit" });
}

/** The whole hour a row stands for, for the table's row headers ("28 Nov 2026, 05:00–06:00"). */
export function hourSpan(hour: string): string {
  const start = new Date(hour);
  const end = new Date(start.getTime() + 3_600_000);
  return intl().formatDateTimeRange(start, end, {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
  });
}

export const formatCount = (value: number): string => intl().formatNumber(value);
