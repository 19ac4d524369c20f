// @vitest-environment happy-dom
/**
 * An endpoint's screen, through the whole console at /console/admin/webhooks/wh-1: its
 * facts, the settings form (PATCH of what changed), secret rotation shown once, deletion
 * after asking, and the read-only view.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { App } from "../../../App";
import { secretOnce } from "./SecretShownOnce";
import { type Answer, EVENT_TYPES, endpoint, fakeApi, grant, inTurn, json, noContent, problem, writes } from "./testing";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("./testing")).fakeSession,
}));

const READ = "idp:webhooks:read";
const WRITE = "idp:webhooks:write";

beforeEach(() => {
  window.history.replaceState(null, "", "/console/admin/webhooks/wh-1");
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const routes = (more: Record<string, Answer> = {}) => ({
  "GET /admin/webhooks/wh-1": json(endpoint()),
  "GET /admin/webhooks/event-types": json({ items: EVENT_TYPES }),
  "GET /admin/webhooks/wh-1/deliveries": json({ items: [], nextCursor: null }),
  ...more,
});

async function settings() {
  render(<App />);
  const form = await screen.findByRole("form", { name: "Endpoint settings" });
  await within(form).findByRole("group", { name: "Event types" });
  return form;
}

test("the settings start from the endpoint; Save sends only what changed", async () => {
  grant(READ, WRITE);
  const calls = fakeApi(
    routes({
      "GET /admin/webhooks/wh-1": inTurn(json(endpoint()), json(endpoint({ description: "HR sync", eventTypes: ["user.created"] }))),
      "PATCH /admin/webhooks/wh-1": json(endpoint({ description: "HR sync", eventTypes: ["user.created"] })),
    }),
  );
  const form = await settings();
  expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Webhook to hooks.example.test");
  expect((within(form).getByLabelText("URL") as HTMLInputElement).value).toBe("https://hooks.example.test/idp");
  expect((within(form).getByRole("checkbox", { name: "user.updated" }) as HTMLInputElement).checked).toBe(true);
  expect((within(form).getByRole("checkbox", { name: "Enabled" }) as HTMLInputElement).checked).toBe(true);

  fireEvent.change(within(form).getByLabelText("Description (optional)"), { target: { value: "HR sync" } });
  fireEvent.click(within(form).getByRole("checkbox", { name: "user.updated" }));
  fireEvent.click(within(form).getByRole("button", { name: "Save endpoint" }));
  await within(form).findByText("Saved.");
  expect(writes(calls).map((c) => [c.method, c.path, c.body])).toEqual([
    ["PATCH", "/admin/webhooks/wh-1", { description: "HR sync", eventTypes: ["user.created"] }],
  ]);
  // The screen reads the endpoint again.
  await waitFor(() => expect(calls.filter((c) => c.method === "GET" && c.path === "/admin/webhooks/wh-1")).toHaveLength(2));
});

test("Save without a change sends nothing", async () => {
  grant(READ, WRITE);
  const calls = fakeApi(routes());
  const form = await settings();
  fireEvent.click(within(form).getByRole("button", { name: "Save endpoint" }));
  await within(form).findByText("Nothing changed.");
  expect(writes(calls)).toEqual([]);
});

test("a refused change shows the API's message at its field", async () => {
  grant(READ, WRITE);
  fakeApi(
    routes({
      "PATCH /admin/webhooks/wh-1": problem(422, {
        errors: [{ field: "url", message: "Use https." }],
      }),
    }),
  );
  const form = await settings();
  const url = within(form).getByLabelText("URL");
  fireEvent.change(url, { target: { value: "ftp://hooks.example.test/" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save endpoint" }));
  await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
  const errorId = url.getAttribute("aria-describedby")?.split(" ").find((id) => id.endsWith("-error"));
  expect(document.getElementById(errorId ?? "")?.textContent).toBe("Use https.");
  expect(within(form).queryByText("Saved.")).toBeNull();
});

test("Rotate secret asks first, then shows the new secret once", async () => {
  grant(READ, WRITE);
  const calls = fakeApi(routes({ "POST /admin/webhooks/wh-1/rotate-secret": json({ secret: "whsec_bmV3LXNlY3JldA==" }) }));
  await settings();
  fireEvent.click(screen.getByRole("button", { name: "Rotate secret" }));
  const ask = await screen.findByRole("alertdialog", { name: "Rotate the signing secret?" });
  expect(writes(calls)).toEqual([]);
  fireEvent.click(within(ask).getByRole("button", { name: "Rotate" }));
  const shown = await screen.findByRole("dialog", { name: "The new signing secret" });
  expect(within(shown).getByTestId("webhook-secret").textContent).toBe("whsec_bmV3LXNlY3JldA==");
  expect(within(shown).getByText(secretOnce())).toBeTruthy();
  expect(writes(calls).map((c) => [c.method, c.path])).toEqual([["POST", "/admin/webhooks/wh-1/rotate-secret"]]);
  fireEvent.click(within(shown).getByRole("button", { name: "I have saved it" }));
  await screen.findByText("The secret was replaced; requests are now signed with the new one.");
  expect(screen.queryByText("whsec_bmV3LXNlY3JldA==")).toBeNull();
});

test("Delete asks first, deletes and goes back to the list, which says so", async () => {
  grant(READ, WRITE);
  const calls = fakeApi(
    routes({
      "DELETE /admin/webhooks/wh-1": noContent,
      "GET /admin/webhooks": json({ items: [], nextCursor: null }),
    }),
  );
  await settings();
  fireEvent.click(screen.getByRole("button", { name: "Delete endpoint" }));
  const ask = await screen.findByRole("alertdialog", { name: "Delete the endpoint https://hooks.example.test/idp?" });
  fireEvent.click(within(ask).getByRole("button", { name: "Cancel" }));
  await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
  expect(writes(calls)).toEqual([]);

  fireEvent.click(screen.getByRole("button", { name: "Delete endpoint" }));
  fireEvent.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Delete" }));
  await waitFor(() => expect(window.location.pathname).toBe("/console/admin/webhooks"));
  await screen.findByText("Endpoint https://hooks.example.test/idp deleted.");
  expect(writes(calls).map((c) => [c.method, c.path])).toEqual([["DELETE", "/admin/webhooks/wh-1"]]);
});

test("read-only: the event types as a list, no form, no rotation, no deletion", async () => {
  grant(READ);
  const calls = fakeApi(routes());
  render(<App />);
  await screen.findByRole("heading", { level: 1, name: "Webhook to hooks.example.test" });
  expect(screen.getByText("user.created")).toBeTruthy();
  expect(screen.queryByRole("form")).toBeNull();
  expect(screen.queryByRole("button", { name: "Rotate secret" })).toBeNull();
  expect(screen.queryByRole("button", { name: "Delete endpoint" })).toBeNull();
  await screen.findByText("No deliveries yet.");
  expect(calls.map((c) => c.path)).not.toContain("/admin/webhooks/event-types");
});

test("without idp:webhooks:read the address says Not available and asks nothing", async () => {
  grant("idp:users:read");
  const calls = fakeApi(routes());
  render(<App />);
  await screen.findByRole("heading", { level: 1, name: "Not available" });
  expect(calls).toEqual([]);
});
