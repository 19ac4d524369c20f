// @vitest-environment happy-dom
/**
 * A client's "Enabled" switch against the provider's API answered at the console's boundary
 * (`fetch`): the list and the facts show a disabled client as such; switching it off asks
 * first, naming what stops, and sends `PATCH {disabled: true}` only once confirmed;
 * switching it on again sends `{disabled: false}` at once; the console client's refusal is
 * shown in the question; without `idp:clients:write` there is no switch.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import type { Client } from "../catalogue/common";
import { clientOf } from "../catalogue/testing";
import { ClientScreen, ClientsScreen } from "../ClientsScreen";
import { fakeApi, grant, inTurn, json, problem, writes } from "../webhooks/testing";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("../webhooks/testing")).fakeSession,
}));

const READ = "idp:clients:read";
const WRITE = "idp:clients:write";
const PATH = "/admin/clients/orders-web";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const client = (more: Partial<Client> = {}): Client =>
  clientOf({ client_id: "orders-web", name: "Orders web", ...more });

const enabledSwitch = () => screen.findByRole("switch", { name: "Enabled" }) as Promise<HTMLInputElement>;

test("the list shows which clients are disabled", async () => {
  grant(READ);
  const items = [client(), client({ client_id: "old-app", name: "Old app", disabled: true })];
  fakeApi({ "GET /admin/clients": json({ items, nextCursor: null }) });
  render(<ClientsScreen params={{}} />);
  const table = await screen.findByRole("table", { name: "Clients" });
  const rows = within(table).getAllByRole("row").slice(1);
  expect(rows.map((row) => row.querySelector(".tag")?.textContent)).toEqual(["Enabled", "Disabled"]);
});

test("switching off asks first, naming what stops, and sends disabled only once confirmed", async () => {
  grant(READ, WRITE);
  const calls = fakeApi({
    [`GET ${PATH}`]: inTurn(json(client()), json(client({ disabled: true }))),
    [`PATCH ${PATH}`]: json(client({ disabled: true })),
  });
  render(<ClientScreen params={{ id: "orders-web" }} />);
  const toggle = await enabledSwitch();
  expect(toggle.checked).toBe(true);

  fireEvent.click(toggle);
  let ask = await screen.findByRole("alertdialog", { name: "Disable the client Orders web?" });
  expect(within(ask).getByText(/Its sign-ins and tokens stop at once/)).toBeTruthy();
  fireEvent.click(within(ask).getByRole("button", { name: "Cancel" }));
  await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
  expect(writes(calls)).toEqual([]);
  expect((await enabledSwitch()).checked).toBe(true);

  fireEvent.click(await enabledSwitch());
  ask = await screen.findByRole("alertdialog", { name: "Disable the client Orders web?" });
  fireEvent.click(within(ask).getByRole("button", { name: "Disable" }));
  await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
  expect(writes(calls).map((call) => [call.method, call.path, call.body])).toEqual([["PATCH", PATH, { disabled: true }]]);
  await waitFor(async () => expect((await enabledSwitch()).checked).toBe(false));
  expect(screen.getByText("Disabled", { selector: ".tag" })).toBeTruthy(); // the facts
});

test("switching on again asks nothing", async () => {
  grant(READ, WRITE);
  const calls = fakeApi({
    [`GET ${PATH}`]: inTurn(json(client({ disabled: true })), json(client())),
    [`PATCH ${PATH}`]: json(client()),
  });
  render(<ClientScreen params={{ id: "orders-web" }} />);
  const toggle = await enabledSwitch();
  expect(toggle.checked).toBe(false);
  fireEvent.click(toggle);
  await waitFor(() => expect(writes(calls)).toHaveLength(1));
  expect(screen.queryByRole("alertdialog")).toBeNull();
  expect(writes(calls)[0]?.body).toEqual({ disabled: false });
  await waitFor(async () => expect((await enabledSwitch()).checked).toBe(true));
});

test("the console client's refusal is shown in the question and the switch stays on", async () => {
  grant(READ, WRITE);
  const refusal =
    "the console client cannot be disabled: every administrator signs in to the console through it, " +
    "so disabling it would lock every administrator out";
  fakeApi({
    "GET /admin/clients/console": json(client({ client_id: "console", name: "Console" })),
    "PATCH /admin/clients/console": problem(422, {
      detail: refusal,
      code: "admin.client_protected",
      errors: [{ field: "disabled", message: refusal }],
    }),
  });
  render(<ClientScreen params={{ id: "console" }} />);
  fireEvent.click(await enabledSwitch());
  const ask = await screen.findByRole("alertdialog", { name: "Disable the client Console?" });
  fireEvent.click(within(ask).getByRole("button", { name: "Disable" }));
  expect((await within(ask).findByRole("alert")).textContent).toBe(refusal);
  expect((screen.getByRole("switch", { name: "Enabled", hidden: true }) as HTMLInputElement).checked).toBe(true);
});

test("without idp:clients:write the status is read, with no switch", async () => {
  grant(READ);
  fakeApi({ [`GET ${PATH}`]: json(client({ disabled: true })) });
  render(<ClientScreen params={{ id: "orders-web" }} />);
  expect(await screen.findByText("Disabled", { selector: ".tag" })).toBeTruthy();
  expect(screen.queryByRole("switch")).toBeNull();
});
