// @vitest-environment happy-dom
/**
 * The webhooks list: the navigation entry (only with idp:webhooks:read), the endpoints with
 * their enabled switch, and the creation form up to the secret shown once.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { App } from "../../../App";
import { Shell } from "../../../Shell";
import { ROUTES } from "../../../routes";
import { WebhooksScreen } from "../WebhooksScreen";
import { secretOnce } from "./SecretShownOnce";
import { EVENT_TYPES, endpoint, fakeApi, grant, inTurn, json, problem, writes } from "./testing";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("./testing")).fakeSession,
}));

const READ = "idp:webhooks:read";
const WRITE = "idp:webhooks:write";

beforeEach(() => {
  window.history.replaceState(null, "", "/console/admin/webhooks");
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const LIST = {
  items: [
    endpoint(),
    endpoint({ id: "wh-2", url: "https://audit.example.test/in", description: "", eventTypes: ["signin.failed"], enabled: false }),
  ],
  nextCursor: null,
};

describe("navigation", () => {
  test("the Webhooks entry shows with idp:webhooks:read, and its screens need that scope", () => {
    grant(READ);
    render(
      <Shell>
        <p>content</p>
      </Shell>,
    );
    const link = screen.getByRole("link", { name: "Webhooks" });
    expect(link.getAttribute("href")).toBe("/console/admin/webhooks");
    cleanup();
    grant("idp:users:read");
    render(
      <Shell>
        <p>content</p>
      </Shell>,
    );
    expect(screen.queryByRole("link", { name: "Webhooks" })).toBeNull();
    expect(ROUTES.filter((route) => route.path.startsWith("/console/admin/webhooks")).map((r) => [r.path, r.scope])).toEqual([
      ["/console/admin/webhooks", READ],
      ["/console/admin/webhooks/:id", READ],
    ]);
  });
});

describe("the list", () => {
  test("each endpoint with its URL linked, its number of event types and its switch", async () => {
    grant(READ, WRITE);
    fakeApi({ "GET /admin/webhooks": json(LIST), "GET /admin/webhooks/event-types": json({ items: EVENT_TYPES }) });
    render(<WebhooksScreen params={{}} />);
    const table = await screen.findByRole("table", { name: "Webhook endpoints" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [HTMLElement, HTMLElement];
    expect(within(first).getByRole("link", { name: "https://hooks.example.test/idp" }).getAttribute("href")).toBe(
      "/console/admin/webhooks/wh-1",
    );
    expect(within(first).getByText("2 types")).toBeTruthy();
    expect(within(second).getByText("1 type")).toBeTruthy();
    expect((within(first).getByRole("switch", { name: /Enabled https:\/\/hooks/ }) as HTMLInputElement).checked).toBe(true);
    expect((within(second).getByRole("switch", { name: "Enabled https://audit.example.test/in" }) as HTMLInputElement).checked).toBe(
      false,
    );
  });

  test("the switch sends PATCH {enabled} and follows the answer", async () => {
    grant(READ, WRITE);
    const calls = fakeApi({
      "GET /admin/webhooks": json(LIST),
      "GET /admin/webhooks/event-types": json({ items: EVENT_TYPES }),
      "PATCH /admin/webhooks/wh-1": json(endpoint({ enabled: false })),
    });
    render(<WebhooksScreen params={{}} />);
    const toggle = await screen.findByRole("switch", { name: /hooks\.example/ });
    fireEvent.click(toggle);
    await waitFor(() => expect(writes(calls)).toHaveLength(1));
    await waitFor(() => expect((screen.getByRole("switch", { name: /hooks\.example/ }) as HTMLInputElement).disabled).toBe(false));
    expect(writes(calls).map((c) => [c.method, c.path, c.body])).toEqual([
      ["PATCH", "/admin/webhooks/wh-1", { enabled: false }],
    ]);
    expect((screen.getByRole("switch", { name: /hooks\.example/ }) as HTMLInputElement).checked).toBe(false);
  });

  test("a refused switch goes back and says why, tied to the switch", async () => {
    grant(READ, WRITE);
    fakeApi({
      "GET /admin/webhooks": json(LIST),
      "GET /admin/webhooks/event-types": json({ items: EVENT_TYPES }),
      "PATCH /admin/webhooks/wh-2": problem(422, {
        detail: "The URL resolves to a private address.",
        errors: [{ field: "url", message: "The URL resolves to a private address." }],
      }),
    });
    render(<WebhooksScreen params={{}} />);
    const toggle = (await screen.findByRole("switch", { name: /audit\.example/ })) as HTMLInputElement;
    fireEvent.click(toggle);
    const message = await screen.findByText("The URL resolves to a private address.");
    const again = screen.getByRole("switch", { name: /audit\.example/ }) as HTMLInputElement;
    expect(again.checked).toBe(false);
    expect(again.getAttribute("aria-describedby")).toBe(message.id);
    expect(again.getAttribute("aria-invalid")).toBe("true");
  });

  test("read-only without idp:webhooks:write: tags, no switch, no creation form", async () => {
    grant(READ);
    const calls = fakeApi({ "GET /admin/webhooks": json(LIST) });
    render(<WebhooksScreen params={{}} />);
    await screen.findByRole("table", { name: "Webhook endpoints" });
    expect(screen.queryByRole("switch")).toBeNull();
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows.map((row) => row.querySelector(".tag")?.textContent)).toEqual(["Enabled", "Disabled"]);
    expect(screen.queryByRole("form", { name: "New endpoint" })).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(["/admin/webhooks"]);
  });

  test("pages with the API's nextCursor", async () => {
    grant(READ);
    const calls = fakeApi({
      "GET /admin/webhooks": inTurn(json({ items: [endpoint()], nextCursor: "c2" }), json({ items: [endpoint({ id: "wh-9", url: "https://nine.example.test/" })], nextCursor: null })),
    });
    render(<WebhooksScreen params={{}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Next page" }));
    await screen.findByRole("link", { name: "https://nine.example.test/" });
    expect(calls.map((c) => c.query.get("cursor"))).toEqual([null, "c2"]);
  });
});

describe("creating an endpoint", () => {
  const routes = () => ({
    "GET /admin/webhooks": json({ items: [], nextCursor: null }),
    "GET /admin/webhooks/event-types": json({ items: EVENT_TYPES }),
  });

  const form = async () => {
    render(<WebhooksScreen params={{}} />);
    const found = await screen.findByRole("form", { name: "New endpoint" });
    await within(found).findByRole("group", { name: "Event types" });
    return found;
  };

  test("nothing is sent without a URL and an event type; each message at its field", async () => {
    grant(READ, WRITE);
    const calls = fakeApi(routes());
    const creation = await form();
    fireEvent.click(within(creation).getByRole("button", { name: "Create endpoint" }));
    const url = within(creation).getByLabelText("URL");
    await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
    const urlError = document.getElementById(url.getAttribute("aria-describedby")?.split(" ").find((id) => id.endsWith("-error")) ?? "");
    expect(urlError?.textContent).toBe("Enter the URL that receives the events.");
    const types = within(creation).getByRole("group", { name: "Event types" });
    expect(types.className).toContain("has-error");
    expect(within(types).getByText("Choose at least one event type.")).toBeTruthy();
    expect(writes(calls)).toEqual([]);
  });

  test("All event types picks every type, and unpicks them; one less leaves it mixed", async () => {
    grant(READ, WRITE);
    fakeApi(routes());
    const creation = await form();
    const all = within(creation).getByRole("checkbox", { name: "All event types" }) as HTMLInputElement;
    fireEvent.click(all);
    for (const type of EVENT_TYPES) {
      expect((within(creation).getByRole("checkbox", { name: type }) as HTMLInputElement).checked).toBe(true);
    }
    expect(all.checked).toBe(true);
    fireEvent.click(within(creation).getByRole("checkbox", { name: "signin.failed" }));
    expect(all.checked).toBe(false);
    expect(all.indeterminate).toBe(true);
    expect(within(creation).getByText(`5 of ${EVENT_TYPES.length} chosen.`, { exact: false })).toBeTruthy();
    fireEvent.click(all);
    fireEvent.click(all);
    expect(within(creation).getAllByRole("checkbox", { checked: true }).map((box) => box.getAttribute("type"))).toEqual(
      // "Enabled" only.
      ["checkbox"],
    );
  });

  test("POST with the values; the secret is shown once with Copy; closing opens the endpoint", async () => {
    grant(READ, WRITE);
    const created = { ...endpoint({ id: "wh-new", eventTypes: ["user.created", "signin.failed"] }), secret: "whsec_c2VjcmV0LXNob3duLW9uY2U=" };
    const calls = fakeApi({
      ...routes(),
      "POST /admin/webhooks": json(created, 201),
      "GET /admin/webhooks/wh-new": json(endpoint({ id: "wh-new" })),
      "GET /admin/webhooks/wh-new/deliveries": json({ items: [], nextCursor: null }),
    });
    const writeText = vi.fn(async (_text: string) => {});
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    // The whole console, so the move to the endpoint's screen is the router's.
    render(<App />);
    const creation = await screen.findByRole("form", { name: "New endpoint" });
    await within(creation).findByRole("group", { name: "Event types" });
    fireEvent.change(within(creation).getByLabelText("URL"), { target: { value: " https://hooks.example.test/idp " } });
    fireEvent.change(within(creation).getByLabelText("Description (optional)"), { target: { value: "Directory sync" } });
    fireEvent.click(within(creation).getByRole("checkbox", { name: "signin.failed" }));
    fireEvent.click(within(creation).getByRole("checkbox", { name: "user.created" }));
    fireEvent.click(within(creation).getByRole("button", { name: "Create endpoint" }));

    const dialog = await screen.findByRole("dialog", { name: "Endpoint created: its signing secret" });
    expect(writes(calls).map((c) => [c.method, c.path, c.body])).toEqual([
      [
        "POST",
        "/admin/webhooks",
        // In the catalogue's order, whatever the order of the clicks.
        { url: "https://hooks.example.test/idp", description: "Directory sync", eventTypes: ["user.created", "signin.failed"], enabled: true },
      ],
    ]);
    expect(within(dialog).getByText(secretOnce())).toBeTruthy();
    expect(secretOnce()).toMatch(/You will not see it again/);
    expect(within(dialog).getByTestId("webhook-secret").textContent).toBe(created.secret);
    fireEvent.click(within(dialog).getByRole("button", { name: "Copy the signing secret" }));
    await within(dialog).findByText("Copied to the clipboard.");
    expect(writeText).toHaveBeenCalledWith(created.secret);

    fireEvent.click(within(dialog).getByRole("button", { name: "I have saved it" }));
    await waitFor(() => expect(window.location.pathname).toBe("/console/admin/webhooks/wh-new"));
    await screen.findByRole("heading", { level: 1, name: "Webhook to hooks.example.test" });
    expect(screen.getAllByRole("status").map((status) => status.textContent)).toContain("Endpoint created.");
    expect(screen.queryByTestId("webhook-secret")).toBeNull();
  });

  test("without a clipboard the secret is selected for the keyboard's copy", async () => {
    grant(READ, WRITE);
    fakeApi({ ...routes(), "POST /admin/webhooks": json({ ...endpoint(), secret: "whsec_abc" }, 201) });
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText: async () => Promise.reject(new Error("denied")) } });
    const creation = await form();
    fireEvent.change(within(creation).getByLabelText("URL"), { target: { value: "https://hooks.example.test/idp" } });
    fireEvent.click(within(creation).getByRole("checkbox", { name: "All event types" }));
    fireEvent.click(within(creation).getByRole("button", { name: "Create endpoint" }));
    const dialog = await screen.findByRole("dialog");
    fireEvent.click(within(dialog).getByRole("button", { name: "Copy the signing secret" }));
    await within(dialog).findByText(/the secret is selected/);
    expect(window.getSelection()?.toString()).toBe("whsec_abc");
  });

  test("the API's field errors show at the URL and name the event type refused", async () => {
    grant(READ, WRITE);
    fakeApi({
      ...routes(),
      "POST /admin/webhooks": problem(422, {
        title: "Unprocessable Content",
        errors: [
          { field: "url", message: "Private-range addresses are not allowed." },
          { field: "eventTypes[1]", message: "Not an event type." },
        ],
      }),
    });
    const creation = await form();
    const url = within(creation).getByLabelText("URL");
    fireEvent.change(url, { target: { value: "https://10.0.0.8/hook" } });
    fireEvent.click(within(creation).getByRole("checkbox", { name: "user.created" }));
    fireEvent.click(within(creation).getByRole("checkbox", { name: "client.created" }));
    fireEvent.click(within(creation).getByRole("button", { name: "Create endpoint" }));

    const summary = await within(creation).findByRole("alert");
    await waitFor(() => expect(url.getAttribute("aria-invalid")).toBe("true"));
    const errorId = url.getAttribute("aria-describedby")?.split(" ").find((id) => id.endsWith("-error"));
    expect(document.getElementById(errorId ?? "")?.textContent).toBe("Private-range addresses are not allowed.");
    const types = within(creation).getByRole("group", { name: "Event types" });
    expect(within(types).getByText("client.created: Not an event type.")).toBeTruthy();
    expect(summary.textContent).toContain("URL: Private-range addresses are not allowed.");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
