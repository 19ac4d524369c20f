// @vitest-environment happy-dom
/**
 * The delivery log of an endpoint: its columns, the status filter, "Load more" by the API's
 * cursor, and "Send again" replacing the row with the queued delivery the API answers.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { Deliveries } from "./Deliveries";
import { type Call, type Answer, delivery, fakeApi, grant, json, problem, writes } from "./testing";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("./testing")).fakeSession,
}));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const PATH = "GET /admin/webhooks/wh-1/deliveries";

const OK = delivery();
const FAILED = delivery({
  id: "d-2",
  eventId: "evt_ffff",
  eventType: "signin.failed",
  status: "failed",
  attempts: 6,
  lastStatusCode: 500,
  lastError: "Internal Server Error",
  deliveredAt: null,
});
const PENDING = delivery({
  id: "d-3",
  eventId: "evt_aaaa",
  eventType: "user.deleted",
  status: "pending",
  attempts: 2,
  lastStatusCode: null,
  lastError: "connection refused",
  nextAttemptAt: "2026-11-28T01:05:00Z",
  deliveredAt: null,
});
const OLDER = delivery({ id: "d-4", eventId: "evt_0000", eventType: "client.created" });

/** The first page or the next, by the query the console sends. */
const log: Answer = (call: Call) => {
  if (call.query.get("status") === "failed") return json({ items: [FAILED], nextCursor: null })(call);
  if (call.query.get("cursor") === "c2") return json({ items: [OLDER], nextCursor: null })(call);
  return json({ items: [OK, FAILED, PENDING], nextCursor: "c2" })(call);
};

const cells = (row: HTMLElement) => within(row).getAllByRole("cell").map((cell) => cell.textContent);
/** The row of an event, found by the whole id in its cell's tooltip. */
const rowOf = (eventId: string) => screen.getByTitle(eventId).closest("tr") as HTMLElement;

test("each delivery: type, event id, status, attempts, last answer, created, delivered or next attempt", async () => {
  grant("idp:webhooks:read", "idp:webhooks:write");
  fakeApi({ [PATH]: log });
  render(<Deliveries endpointId="wh-1" canWrite />);
  const table = await screen.findByRole("table", { name: "Deliveries to this endpoint, newest first" });
  expect(within(table).getAllByRole("columnheader").map((th) => th.textContent)).toEqual([
    "Event type",
    "Event id",
    "Status",
    "Attempts",
    "Last answer",
    "Created",
    "Delivered / next attempt",
    "Actions",
  ]);
  expect(within(rowOf(FAILED.eventId)).getByRole("rowheader").textContent).toBe("signin.failed");
  const failed = cells(rowOf(FAILED.eventId));
  expect(failed.slice(0, 4)).toEqual(["evt_ffff", "Failed", "6", "HTTP 500: Internal Server Error"]);
  expect(failed[5]).toBe("Gave up");
  const pending = cells(rowOf(PENDING.eventId));
  expect(pending.slice(1, 4)).toEqual(["Pending", "2", "connection refused"]);
  expect(pending[5]).toMatch(/^Next attempt /);
  expect(cells(rowOf(OK.eventId))[5]).toMatch(/^Delivered /);
});

test("Load more adds the next page under the rows, then is gone", async () => {
  grant("idp:webhooks:read");
  const calls = fakeApi({ [PATH]: log });
  render(<Deliveries endpointId="wh-1" canWrite={false} />);
  fireEvent.click(await screen.findByRole("button", { name: "Load more" }));
  await screen.findByTitle(OLDER.eventId);
  expect(screen.getAllByRole("row").slice(1).map((row) => within(row).getByRole("rowheader").textContent)).toEqual([
    "user.created",
    "signin.failed",
    "user.deleted",
    "client.created",
  ]);
  expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
  expect(screen.getByRole("status").textContent).toBe("1 more shown.");
  expect(calls.map((c) => [c.query.get("cursor"), c.query.get("limit")])).toEqual([
    [null, "25"],
    ["c2", "25"],
  ]);
  // Read-only: no actions.
  expect(screen.queryByRole("columnheader", { name: "Actions" })).toBeNull();
});

test("the status filter asks the API again from the first page", async () => {
  grant("idp:webhooks:read");
  const calls = fakeApi({ [PATH]: log });
  render(<Deliveries endpointId="wh-1" canWrite={false} />);
  fireEvent.click(await screen.findByRole("button", { name: "Load more" }));
  await screen.findByTitle(OLDER.eventId);
  fireEvent.change(screen.getByLabelText("Status"), { target: { value: "failed" } });
  await waitFor(() => expect(screen.queryByTitle(OK.eventId)).toBeNull());
  expect(screen.getAllByRole("row")).toHaveLength(2);
  expect(screen.getByTitle(FAILED.eventId)).toBeTruthy();
  expect(calls.at(-1)?.query.get("status")).toBe("failed");
  expect(calls.at(-1)?.query.get("cursor")).toBeNull();
});

test("Send again posts the resend and shows the row as the API answers it", async () => {
  grant("idp:webhooks:read", "idp:webhooks:write");
  const requeued = { ...FAILED, status: "pending", nextAttemptAt: "2026-11-28T01:10:00Z" };
  const calls = fakeApi({ [PATH]: log, "POST /admin/webhooks/wh-1/deliveries/d-2/resend": json(requeued, 202) });
  render(<Deliveries endpointId="wh-1" canWrite />);
  await screen.findByTitle(FAILED.eventId);
  // Each row offers it (a pending one is sent at once); the button names its event.
  expect(screen.getAllByRole("button", { name: /^Send again/ }).map((b) => b.textContent)).toEqual([
    "Send again user.created evt_01234567…",
    "Send again signin.failed evt_ffff",
    "Send again user.deleted evt_aaaa",
  ]);
  fireEvent.click(screen.getByRole("button", { name: "Send again signin.failed evt_ffff" }));
  await waitFor(() => expect(cells(rowOf(FAILED.eventId))[1]).toBe("Pending"));
  expect(cells(rowOf(FAILED.eventId))[5]).toMatch(/^Next attempt /);
  expect(screen.getByRole("status").textContent).toBe("Event signin.failed (evt_ffff) will be sent again.");
  expect(writes(calls).map((c) => [c.method, c.path])).toEqual([["POST", "/admin/webhooks/wh-1/deliveries/d-2/resend"]]);
  // The row changed in place: the log was not read again.
  expect(calls.filter((c) => c.method === "GET")).toHaveLength(1);
});

test("a refused Send again says why and leaves the row", async () => {
  grant("idp:webhooks:read", "idp:webhooks:write");
  fakeApi({
    [PATH]: log,
    "POST /admin/webhooks/wh-1/deliveries/d-2/resend": problem(409, { detail: "An attempt is in flight." }),
  });
  render(<Deliveries endpointId="wh-1" canWrite />);
  fireEvent.click(await screen.findByRole("button", { name: "Send again signin.failed evt_ffff" }));
  const alert = await screen.findByRole("alert");
  expect(alert.textContent).toBe("Event signin.failed could not be sent again. An attempt is in flight.");
  expect(cells(rowOf(FAILED.eventId))[1]).toBe("Failed");
});

test("Refresh reads the first page again", async () => {
  grant("idp:webhooks:read");
  const calls = fakeApi({ [PATH]: log });
  render(<Deliveries endpointId="wh-1" canWrite={false} />);
  await screen.findByTitle(OK.eventId);
  fireEvent.click(screen.getByRole("button", { name: "Refresh the delivery log" }));
  await waitFor(() => expect(calls).toHaveLength(2));
  expect(calls.map((c) => c.query.get("cursor"))).toEqual([null, null]);
});
