/**
 * The activity dashboard (`/console/admin/activity`, scope `idp:audit:read`):
 * `GET /admin/activity?range=24h|7d` drawn as four charts (sign-ins by method and outcome,
 * throttled attempts, tokens by grant, back-channel deliveries by status) and the active
 * sessions. Each chart has a table of its figures (the total of each series, and every hour
 * behind a disclosure), so the numbers are readable without the picture. The range lives in
 * the URL (`?range=7d`).
 */
import { useMemo } from "react";
import { intl, t } from "../../i18n";
import { setQuery, useLocation } from "../../router";
import { Screen } from "../../ui/Screen";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable } from "../../ui/table";
import { Chart, PALETTE } from "./activity/Chart";
import {
  type Activity,
  type Chart as ChartData,
  RANGES,
  type Range,
  chartsOf,
  formatCount,
  hourSpan,
  isEmpty,
  loadActivity,
  rangeOf,
} from "./activity/model";

export function ActivityScreen(_props: { params: Record<string, string> }) {
  const { query } = useLocation();
  const range = rangeOf(query.get("range"));
  const { state, reload } = useLoad((signal) => loadActivity(range, signal), [range]);
  return (
    <Screen title={t("admin-activity.title")} intro={t("admin-activity.intro")}>
      <div className="quick-filters" role="group" aria-label={t("admin-activity.range.label")}>
        {RANGES.map((choice) => (
          <button
            key={choice}
            type="button"
            className="button"
            aria-pressed={choice === range}
            onClick={() => setQuery({ range: choice === "24h" ? null : choice })}
          >
            {t("admin-activity.range.choice", { range: choice })}
          </button>
        ))}
        <button type="button" className="button" onClick={reload}>
          {t("admin-activity.refresh")}
        </button>
      </div>
      <Loaded state={state} reload={reload} label={t("admin-activity.loading")}>
        {(activity) => <Dashboard activity={activity} range={range} />}
      </Loaded>
    </Screen>
  );
}

function Dashboard({ activity, range }: { activity: Activity; range: Range }) {
  // The same series objects between renders, so a chart is drawn again only for new data.
  const charts = useMemo(() => chartsOf(activity), [activity]);
  const generated = new Date(activity.generatedAt);
  return (
    <>
      <section className="panel" aria-labelledby="activity-sessions-title">
        <h2 id="activity-sessions-title">{t("admin-activity.sessions.title")}</h2>
        <div className="activity-summary">
          <p className="activity-figure" data-testid="active-sessions">
            {formatCount(activity.activeSessions)}
          </p>
          <p className="hint">{t("admin-activity.sessions.hint")}</p>
        </div>
        <p className="hint">
          {t("admin-activity.generated", {
            at: Number.isNaN(generated.getTime())
              ? activity.generatedAt
              : intl().formatDate(generated, { dateStyle: "medium", timeStyle: "short" }),
          })}
        </p>
      </section>
      {charts.map((chart) => (
        <ChartPanel key={chart.id} chart={chart} hours={activity.hours} range={range} />
      ))}
    </>
  );
}

function ChartPanel({ chart, hours, range }: { chart: ChartData; hours: string[]; range: Range }) {
  const headingId = `activity-${chart.id}-title`;
  const empty = isEmpty(chart);
  const summary = t("admin-activity.chart.summary", {
    title: chart.title,
    figures: intl().formatList(chart.series.map((s) => `${s.label}: ${formatCount(s.total)}`)),
  });
  return (
    <section className="panel" aria-labelledby={headingId} data-chart={chart.id}>
      <h2 id={headingId}>{chart.title}</h2>
      {empty ? (
        <p className="empty">{t("admin-activity.empty", { range })}</p>
      ) : (
        <>
          <ul className="activity-legend" aria-hidden="true">
            {chart.series.map((s, index) => (
              <li key={s.key}>
                <span className={`swatch swatch-${index % PALETTE.length}`} />
                {s.label}
              </li>
            ))}
          </ul>
          <Chart hours={hours} series={chart.series} range={range} label={summary} />
          <div className="activity-table">
            <DataTable
              caption={t("admin-activity.table.totals", { title: chart.title })}
              rows={chart.series}
              rowKey={(s) => s.key}
              columns={[
                { header: t("admin-activity.table.series"), rowHeader: true, cell: (s) => s.label },
                { header: t("admin-activity.table.total"), cell: (s) => formatCount(s.total) },
              ]}
            />
          </div>
          <details className="activity-hours">
            <summary>{t("admin-activity.table.hours.show")}</summary>
            <div className="activity-table">
              <DataTable
                caption={t("admin-activity.table.hours", { title: chart.title })}
                rows={hours.map((hour, index) => ({ hour, index }))}
                rowKey={(row) => row.hour}
                columns={[
                  {
                    header: t("admin-activity.table.hour"),
                    rowHeader: true,
                    cell: (row) => <time dateTime={row.hour}>{hourSpan(row.hour)}</time>,
                  },
                  ...chart.series.map((s) => ({
                    header: s.label,
                    cell: (row: { index: number }) => formatCount(s.counts[row.index] ?? 0),
                  })),
                ]}
              />
            </div>
          </details>
        </>
      )}
    </section>
  );
}
