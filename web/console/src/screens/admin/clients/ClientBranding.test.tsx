// @vitest-environment happy-dom
/**
 * The client screen's branding section against the provider's API answered at
 * the console's boundary (`fetch`): the provider's 422 sentence shows at its field, a save
 * sends every member (an emptied input as null, the provider's value again), an SVG refusal
 * shows at the file input, "Use the provider's brand" deletes the client's row, and without
 * `idp:branding:write` the section only reads.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { ClientBranding } from "./ClientBranding";
import type { ClientBrand } from "./brand";

const granted = new Set<string>();

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  signedIn: () => ({
    accessToken: "access-token",
    idToken: "id-token",
    refreshToken: null,
    expiresAt: Date.now() + 3_600_000,
    scopes: granted,
    identity: { sub: "admin-1", name: "Ada Admin", email: "ada@example.test" },
  }),
  hasScope: (scope: string) => granted.has(scope),
}));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  granted.clear();
});

interface Call {
  method: string;
  path: string;
  body: unknown;
}

type Answer = (call: Call) => Response;

const json =
  (body: unknown, status = 200): Answer =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": status >= 400 ? "application/problem+json" : "application/json" },
    });

const PATH = "/admin/clients/orders-web/branding";

const brand = (more: Partial<ClientBrand> = {}): ClientBrand => ({
  productName: null,
  primaryColor: null,
  termsUri: null,
  privacyUri: null,
  logoUri: null,
  updatedAt: null,
  ...more,
});

/** Stubs `fetch`: "METHOD /path" to its answer (each list answered in turn); records every call. */
function fakeApi(routes: Record<string, Answer | Answer[]>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, "http://localhost");
    const body = typeof init.body === "string" ? (JSON.parse(init.body) as unknown) : init.body;
    const call: Call = { method: init.method ?? "GET", path: url.pathname, body };
    calls.push(call);
    const route = routes[`${call.method} ${call.path}`];
    const answer = Array.isArray(route) ? (route.shift() ?? route[0]) : route;
    return answer ? answer(call) : json({ status: 404, title: "Not Found" }, 404)(call);
  });
  return calls;
}

const show = async () => {
  render(<ClientBranding clientId="orders-web" clientName="Orders web" />);
  return screen.findByRole("form", { name: "Client branding" });
};

test("the provider's contrast refusal shows at the colour field; nothing is taken as saved", async () => {
  granted.add("idp:branding:read").add("idp:branding:write");
  const message = "contrast with white text is 1.6:1; WCAG AA needs at least 4.5:1";
  const calls = fakeApi({
    [`GET ${PATH}`]: json(brand()),
    [`PUT ${PATH}`]: json(
      { status: 422, title: "Unprocessable Content", errors: [{ field: "primaryColor", message }] },
      422,
    ),
  });
  const form = await show();
  const colour = within(form).getByLabelText("Primary colour") as HTMLInputElement;
  fireEvent.change(colour, { target: { value: "#FFCC00" } });
  // The picker follows the text, lower-case as a colour input holds it.
  expect((within(form).getByLabelText("Pick the primary colour") as HTMLInputElement).value).toBe("#ffcc00");
  fireEvent.click(within(form).getByRole("button", { name: "Save branding" }));

  await waitFor(() => expect(colour.getAttribute("aria-invalid")).toBe("true"));
  const described = (colour.getAttribute("aria-describedby") ?? "").split(" ");
  const errorId = described.find((id) => id.endsWith("-error"));
  expect(document.getElementById(errorId ?? "")?.textContent).toBe(message);
  expect(within(form).queryByText("Branding saved.")).toBeNull();
  const put = calls.find((call) => call.method === "PUT");
  expect(put?.body).toEqual({ productName: null, primaryColor: "#FFCC00", termsUri: null, privacyUri: null });
});

test("a save sends every member, emptied ones as null, and shows what the provider kept", async () => {
  granted.add("idp:branding:read").add("idp:branding:write");
  const stored = brand({ productName: "Orders", termsUri: "https://orders.example/terms" });
  const saved = brand({ productName: "Orders Portal", primaryColor: "#1d4f91", updatedAt: "2026-11-28T05:00:00Z" });
  const calls = fakeApi({ [`GET ${PATH}`]: json(stored), [`PUT ${PATH}`]: json(saved) });
  const form = await show();
  expect((within(form).getByLabelText("Product name") as HTMLInputElement).value).toBe("Orders");
  fireEvent.change(within(form).getByLabelText("Product name"), { target: { value: " Orders Portal " } });
  fireEvent.change(within(form).getByLabelText("Primary colour"), { target: { value: "#1D4F91" } });
  fireEvent.change(within(form).getByLabelText("Terms of service URL"), { target: { value: "  " } });
  fireEvent.click(within(form).getByRole("button", { name: "Save branding" }));

  await within(form).findByText("Branding saved.");
  expect(calls.find((call) => call.method === "PUT")?.body).toEqual({
    productName: "Orders Portal",
    primaryColor: "#1D4F91",
    termsUri: null,
    privacyUri: null,
  });
  // The form holds the provider's answer (the colour stored lower-case).
  expect((within(form).getByLabelText("Primary colour") as HTMLInputElement).value).toBe("#1d4f91");
});

test("a colour that is no #rrggbb is refused before sending", async () => {
  granted.add("idp:branding:read").add("idp:branding:write");
  const calls = fakeApi({ [`GET ${PATH}`]: json(brand()) });
  const form = await show();
  fireEvent.change(within(form).getByLabelText("Primary colour"), { target: { value: "blue" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save branding" }));
  await waitFor(() =>
    expect(within(form).getByLabelText("Primary colour").getAttribute("aria-invalid")).toBe("true"),
  );
  expect(within(form).getByText("Enter the colour as #rrggbb, for example #1d4f91.")).toBeTruthy();
  expect(calls.filter((call) => call.method !== "GET")).toEqual([]);
});

test("an SVG logo's refusal shows at the file input", async () => {
  granted.add("idp:branding:read").add("idp:branding:write");
  const refusal = "is SVG or other markup, which is refused: a script inside it would run on the provider's pages";
  const calls = fakeApi({
    [`GET ${PATH}`]: json(brand()),
    [`PUT ${PATH}/logo`]: json(
      { status: 415, title: "Unsupported Media Type", errors: [{ field: "body", message: refusal }] },
      415,
    ),
  });
  await show();
  const logo = await screen.findByRole("form", { name: "Client logo" });
  const input = within(logo).getByLabelText("Logo image") as HTMLInputElement;
  const svg = new File(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], "logo.svg", {
    type: "image/svg+xml",
  });
  fireEvent.change(input, { target: { files: [svg] } });
  fireEvent.click(within(logo).getByRole("button", { name: "Upload logo" }));

  await waitFor(() => expect(input.getAttribute("aria-invalid")).toBe("true"));
  expect(within(logo).getAllByText(refusal).length).toBeGreaterThan(0);
  const upload = calls.find((call) => call.method === "PUT");
  expect(upload?.path).toBe(`${PATH}/logo`);
  expect(upload?.body).toBe(svg);
});

test("“Use the provider's brand” deletes the client's row and empties the form", async () => {
  granted.add("idp:branding:read").add("idp:branding:write");
  const calls = fakeApi({
    [`GET ${PATH}`]: json(brand({ productName: "Orders", primaryColor: "#1d4f91" })),
    [`DELETE ${PATH}`]: () => new Response(null, { status: 204 }),
  });
  const form = await show();
  expect((within(form).getByLabelText("Product name") as HTMLInputElement).value).toBe("Orders");
  fireEvent.click(screen.getByRole("button", { name: "Use the provider's brand" }));
  const dialog = await screen.findByRole("alertdialog");
  fireEvent.click(within(dialog).getByRole("button", { name: "Use the provider's" }));

  await screen.findByText("The client now uses the provider's brand.");
  expect(calls.filter((call) => call.method === "DELETE").map((call) => call.path)).toEqual([PATH]);
  const fresh = screen.getByRole("form", { name: "Client branding" });
  expect((within(fresh).getByLabelText("Product name") as HTMLInputElement).value).toBe("");
  expect((within(fresh).getByLabelText("Primary colour") as HTMLInputElement).value).toBe("");
});

test("without idp:branding:write the section reads: the client's values, the provider's elsewhere", async () => {
  granted.add("idp:branding:read");
  const calls = fakeApi({ [`GET ${PATH}`]: json(brand({ productName: "Orders", primaryColor: "#1d4f91" })) });
  render(<ClientBranding clientId="orders-web" clientName="Orders web" />);
  await screen.findByText("Orders");
  expect(screen.getByText("#1d4f91")).toBeTruthy();
  expect(screen.getAllByText("The provider's").length).toBe(3);
  expect(screen.queryByRole("form")).toBeNull();
  expect(screen.queryByRole("button", { name: "Use the provider's brand" })).toBeNull();
  expect(calls.every((call) => call.method === "GET")).toBe(true);
});
