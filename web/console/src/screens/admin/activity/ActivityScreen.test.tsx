// @vitest-environment happy-dom
/**
 * The activity dashboard through the whole console at /console/admin/activity: the figures
 * of `GET /admin/activity` in each chart's tables (totals and every hour), the numbers handed
 * to the drawing, the range toggle, empty charts, and the figures in another language.
 * uPlot draws on a canvas, which happy-dom has not: it is replaced by a recorder here (the
 * drawing itself is the browser test's job, tests/e2e/test_console_activity.py).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { App } from "../../../App";
import { ROUTES } from "../../../routes";
import { setLocale } from "../../../i18n";
import { fakeApi, grant, json } from "../webhooks/testing";
import type { Activity } from "./model";

const drawn = vi.hoisted(() => [] as { series: (string | undefined)[]; data: number[][] }[]);

vi.mock("uplot", () => ({
  default: class {
    constructor(options: { series: { label?: string }[] }, data: number[][]) {
      drawn.push({ series: options.series.map((s) => s.label), data });
    }
    setSize(): void {}
    destroy(): void {}
  },
}));

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("../webhooks/testing")).fakeSession,
}));

class NoResize {
  observe(): void {}
  disconnect(): void {}
}

beforeEach(() => {
  window.history.replaceState(null, "", "/console/admin/activity");
  vi.stubGlobal("ResizeObserver", NoResize);
  drawn.length = 0;
});

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await setLocale("en");
});

const HOURS = ["2026-11-28T02:00:00Z", "2026-11-28T03:00:00Z", "2026-11-28T04:00:00Z"];

function activity(overrides: Partial<Activity> = {}): Activity {
  return {
    range: "24h",
    hours: HOURS,
    signins: [
      { method: "password", outcome: "succeeded", counts: [0, 1, 2], total: 3 },
      { method: "password", outcome: "failed", counts: [2, 0, 0], total: 2 },
    ],
    throttled: { counts: [0, 0, 1], total: 1 },
    tokens: [{ grant: "client_credentials", counts: [0, 0, 4], total: 4 }],
    backchannel: [],
    activeSessions: 2,
    generatedAt: "2026-11-28T04:30:00Z",
    ...overrides,
  };
}

/** The rows of a table as [header cell, other cells…] texts. */
function rowsOf(table: HTMLElement): string[][] {
  return within(table)
    .getAllByRole("row")
    .slice(1)
    .map((row) => Array.from(row.children).map((cell) => cell.textContent ?? ""));
}

test("the route needs idp:audit:read", () => {
  expect(ROUTES.filter((r) => r.path === "/console/admin/activity").map((r) => r.scope)).toEqual(["idp:audit:read"]);
});

test("each chart's totals and hours, the active sessions, and the series drawn", async () => {
  grant("idp:audit:read");
  const calls = fakeApi({ "GET /admin/activity": json(activity()) });
  render(<App />);
  const signins = await screen.findByRole("table", { name: "Sign-ins per hour: totals" });
  expect(rowsOf(signins)).toEqual([
    ["Password, succeeded", "3"],
    ["Password, failed", "2"],
  ]);
  expect(rowsOf(screen.getByRole("table", { name: "Throttled attempts per hour: totals" }))).toEqual([["Throttled", "1"]]);
  expect(rowsOf(screen.getByRole("table", { name: "Tokens issued per hour: totals" }))).toEqual([["Client credentials", "4"]]);
  expect(screen.getByTestId("active-sessions").textContent).toBe("2");
  // Every hour, a column per series, in the API's order.
  const hours = screen.getByRole("table", { name: "Sign-ins per hour: each hour" });
  expect(within(hours).getAllByRole("columnheader").map((c) => c.textContent)).toEqual([
    "Hour",
    "Password, succeeded",
    "Password, failed",
  ]);
  expect(rowsOf(hours).map((row) => row.slice(1))).toEqual([
    ["0", "2"],
    ["1", "0"],
    ["2", "0"],
  ]);
  expect(within(hours).getAllByRole("rowheader")[0]?.querySelector("time")?.getAttribute("dateTime")).toBe(HOURS[0]);
  // Nothing was delivered over the back channel: that chart says so and draws nothing.
  const backchannel = screen.getByRole("region", { name: "Back-channel logout deliveries per hour" });
  expect(within(backchannel).getByText("Nothing was counted in the last 24 hours.")).toBeTruthy();
  expect(within(backchannel).queryByRole("img")).toBeNull();
  // Three charts drawn, each with the hours (seconds) and the series' counts.
  // uPlot is created in a passive effect, which React may flush after the tables appear.
  const seconds = HOURS.map((h) => Date.parse(h) / 1000);
  await waitFor(() => expect(drawn).toEqual([
    { series: [undefined, "Password, succeeded", "Password, failed"], data: [seconds, [0, 1, 2], [2, 0, 0]] },
    { series: [undefined, "Throttled"], data: [seconds, [0, 0, 1]] },
    { series: [undefined, "Client credentials"], data: [seconds, [0, 0, 4]] },
  ]));
  expect(screen.getAllByRole("img").map((img) => img.getAttribute("aria-label"))).toContain(
    "Chart: Sign-ins per hour. Totals: Password, succeeded: 3 and Password, failed: 2.",
  );
  expect(calls.map((c) => [c.path, c.query.get("range")]).filter(([p]) => p === "/admin/activity")).toEqual([
    ["/admin/activity", "24h"],
  ]);
});

test("the 7 days toggle asks for range=7d and keeps it in the URL", async () => {
  grant("idp:audit:read");
  const calls = fakeApi({ "GET /admin/activity": json(activity()) });
  render(<App />);
  await screen.findByRole("table", { name: "Sign-ins per hour: totals" });
  const last24 = screen.getByRole("button", { name: "Last 24 hours" });
  expect(last24.getAttribute("aria-pressed")).toBe("true");
  fireEvent.click(screen.getByRole("button", { name: "Last 7 days" }));
  await waitFor(() => expect(calls.filter((c) => c.path === "/admin/activity").map((c) => c.query.get("range"))).toEqual(["24h", "7d"]));
  expect(window.location.search).toBe("?range=7d");
  expect(screen.getByRole("button", { name: "Last 7 days" }).getAttribute("aria-pressed")).toBe("true");
});

test("an empty range says so in every chart", async () => {
  grant("idp:audit:read");
  fakeApi({
    "GET /admin/activity": json(
      activity({ signins: [], throttled: { counts: [0, 0, 0], total: 0 }, tokens: [], backchannel: [], activeSessions: 0 }),
    ),
  });
  window.history.replaceState(null, "", "/console/admin/activity?range=7d");
  render(<App />);
  await screen.findByTestId("active-sessions");
  expect(screen.getAllByText("Nothing was counted in the last 7 days.")).toHaveLength(4);
  expect(drawn).toEqual([]);
  expect(screen.queryAllByRole("table")).toEqual([]);
});

test("in German: the texts, the series' names and the numbers", async () => {
  grant("idp:audit:read");
  fakeApi({
    "GET /admin/activity": json(activity({ tokens: [{ grant: "client_credentials", counts: [0, 1200, 34], total: 1234 }] })),
  });
  await setLocale("de");
  render(<App />);
  const tokens = await screen.findByRole("table", { name: "Ausgestellte Tokens pro Stunde: Summen" });
  expect(rowsOf(tokens)).toEqual([["Client-Anmeldedaten", "1.234"]]);
  expect(rowsOf(screen.getByRole("table", { name: "Anmeldungen pro Stunde: Summen" }))[1]).toEqual([
    "Passwort, fehlgeschlagen",
    "2",
  ]);
  expect(screen.getByRole("button", { name: "Letzte 7 Tage" })).toBeTruthy();
});
