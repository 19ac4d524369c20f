// @vitest-environment happy-dom
/**
 * The branding screen through the whole console at /console/admin/branding: the brand form
 * (live contrast hint, the provider's 422 at its field, the PUT body), the logo (a refusal
 * at the file input, the uploaded logo shown, removal), the mail previews (kind and
 * language chosen, the HTML in a sandboxed frame), and the read-only view.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { App } from "../../../App";
import { ROUTES } from "../../../routes";
import { type Answer, fakeApi, grant, inTurn, json, noContent, problem, writes } from "../webhooks/testing";
import type { BrandSettings } from "./model";
import { contrastWithWhite } from "./rules";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  ...(await import("../webhooks/testing")).fakeSession,
}));

const READ = "idp:branding:read";
const WRITE = "idp:branding:write";

beforeEach(() => {
  window.history.replaceState(null, "", "/console/admin/branding");
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function brand(overrides: Partial<BrandSettings> = {}): BrandSettings {
  return {
    productName: "Acme ID",
    primaryColor: "#1d4f91",
    termsUri: null,
    privacyUri: null,
    logoUri: null,
    updatedAt: "2026-11-28T01:00:00Z",
    ...overrides,
  };
}

const TEMPLATES = {
  templates: [
    { kind: "password_reset", name: "Password reset" },
    { kind: "factor_locked", name: "Someone knows your password" },
  ],
  locales: ["en", "de", "fr", "es", "ar"],
};

function preview(call: { path: string; query: URLSearchParams }): Response {
  const kind = call.path.split("/")[3] ?? "";
  const locale = call.query.get("locale") ?? "";
  const subject = locale === "de" ? "Passwort zurücksetzen" : "Reset your password";
  return new Response(
    JSON.stringify({ kind, locale, subject, text: `${subject}\n\nhttps://id.example.test/reset`, html: `<p>${subject}</p>` }),
    { status: 200, headers: { "Content-Type": "application/json" } },
  );
}

const routes = (more: Record<string, Answer> = {}): Record<string, Answer> => ({
  "GET /admin/branding": json(brand()),
  "GET /admin/mail-templates": json(TEMPLATES),
  "GET /admin/mail-templates/password_reset/preview": preview,
  "GET /admin/mail-templates/factor_locked/preview": preview,
  ...more,
});

async function brandForm(): Promise<HTMLElement> {
  render(<App />);
  return screen.findByRole("form", { name: "The provider's brand" });
}

test("the route needs idp:branding:read", () => {
  expect(ROUTES.filter((r) => r.path === "/console/admin/branding").map((r) => r.scope)).toEqual([READ]);
});

test("the contrast ratio follows WCAG 2.x", () => {
  expect(contrastWithWhite("#ffffff")).toBeCloseTo(1, 5);
  expect(contrastWithWhite("#000000")).toBeCloseTo(21, 5);
  expect(contrastWithWhite("#767676")).toBeCloseTo(4.54, 2);
  expect(contrastWithWhite("blue")).toBeNull();
});

test("the colour's contrast hint follows the typing; the provider's 422 shows at the field", async () => {
  grant(READ, WRITE);
  const message = "contrast with white text is 1.5:1; WCAG AA needs at least 4.5:1";
  const calls = fakeApi(
    routes({ "PUT /admin/branding": problem(422, { title: "Invalid", errors: [{ field: "primaryColor", message }] }) }),
  );
  const form = await brandForm();
  const colour = within(form).getByLabelText("Primary colour") as HTMLInputElement;
  expect(colour.value).toBe("#1d4f91");
  expect(within(form).getByTestId("contrast-hint").textContent).toMatch(/^Contrast with white text: 8\.\d:1\. Meets WCAG AA/);
  fireEvent.change(colour, { target: { value: "#FFCC00" } });
  expect(within(form).getByTestId("contrast-hint").textContent).toBe(
    "Contrast with white text: 1.5:1. WCAG AA needs at least 4.5:1; this colour will be refused.",
  );
  fireEvent.click(within(form).getByRole("button", { name: "Save brand" }));
  const shown = await within(form).findByText(message, { selector: ".field-error" });
  expect(colour.getAttribute("aria-invalid")).toBe("true");
  expect(colour.getAttribute("aria-describedby")).toContain(shown.id);
  expect(writes(calls).map((c) => [c.method, c.path, c.body])).toEqual([
    [
      "PUT",
      "/admin/branding",
      { productName: "Acme ID", primaryColor: "#FFCC00", termsUri: null, privacyUri: null },
    ],
  ]);
});

test("a colour that is not #rrggbb is refused before sending", async () => {
  grant(READ, WRITE);
  const calls = fakeApi(routes());
  const form = await brandForm();
  fireEvent.change(within(form).getByLabelText("Primary colour"), { target: { value: "navy" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save brand" }));
  await within(form).findByText("Enter the colour as # and six hexadecimal digits, for example #1d4f91.", {
    selector: ".field-error",
  });
  expect(writes(calls)).toEqual([]);
});

test("a good brand saves every member; an emptied input is sent as null", async () => {
  grant(READ, WRITE);
  const saved = brand({ productName: "Acme", termsUri: "https://acme.example/terms" });
  const calls = fakeApi(routes({ "PUT /admin/branding": json(saved) }));
  const form = await brandForm();
  fireEvent.change(within(form).getByLabelText("Product name"), { target: { value: " Acme " } });
  fireEvent.change(within(form).getByLabelText("Terms of service link"), { target: { value: "https://acme.example/terms" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save brand" }));
  await within(form).findByText("Saved.");
  expect(writes(calls).map((c) => c.body)).toEqual([
    { productName: "Acme", primaryColor: "#1d4f91", termsUri: "https://acme.example/terms", privacyUri: null },
  ]);
});

test("an SVG refused by the provider is named at the file input; a PNG is shown; removal asks first", async () => {
  grant(READ, WRITE);
  const refusal = "SVG images are refused: a script inside would run in the page's origin.";
  const calls = fakeApi(
    routes({
      "PUT /admin/branding/logo": inTurn(
        problem(415, { title: "Unsupported Media Type", detail: refusal, errors: [{ field: "body", message: refusal }] }),
        json(brand({ logoUri: "https://id.example.test/media/brand/brand-abc.png" })),
      ),
      "DELETE /admin/branding/logo": noContent,
    }),
  );
  render(<App />);
  const form = await screen.findByRole("form", { name: "Upload a logo" });
  const input = within(form).getByLabelText("New logo") as HTMLInputElement;
  fireEvent.change(input, { target: { files: [new File(["<svg/>"], "logo.svg", { type: "image/svg+xml" })] } });
  fireEvent.click(within(form).getByRole("button", { name: "Upload logo" }));
  const error = await within(form).findByText(refusal, { selector: ".field-error" });
  expect(input.getAttribute("aria-describedby")).toContain(error.id);

  const png = new File([new Uint8Array([137, 80, 78, 71])], "logo.png", { type: "image/png" });
  fireEvent.change(within(form).getByLabelText("New logo"), { target: { files: [png] } });
  fireEvent.click(within(form).getByRole("button", { name: "Upload logo" }));
  await screen.findByText("Logo saved.");
  expect((screen.getByRole("img", { name: "The current logo" }) as HTMLImageElement).src).toBe(
    "https://id.example.test/media/brand/brand-abc.png",
  );
  expect(writes(calls).map((c) => [c.method, c.path, c.headers["Content-Type"]])).toEqual([
    ["PUT", "/admin/branding/logo", "image/svg+xml"],
    ["PUT", "/admin/branding/logo", "image/png"],
  ]);

  fireEvent.click(screen.getByRole("button", { name: "Remove logo" }));
  const dialog = await screen.findByRole("alertdialog", { name: "Remove the logo?" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Remove logo" }));
  await screen.findByText("Logo removed.");
  expect(screen.queryByRole("img", { name: "The current logo" })).toBeNull();
  expect(writes(calls).at(-1)?.method).toBe("DELETE");
});

test("mail previews: the chosen mail and language, the HTML in a sandboxed frame, the text part", async () => {
  grant(READ);
  const calls = fakeApi(routes());
  render(<App />);
  const panel = await screen.findByRole("region", { name: "Mail previews" });
  await within(panel).findByText("Reset your password", { selector: "[data-testid=mail-subject]" });
  fireEvent.change(within(panel).getByLabelText("Language of the mail"), { target: { value: "de" } });
  await within(panel).findByText("Passwort zurücksetzen", { selector: "[data-testid=mail-subject]" });
  const frame = within(panel).getByTitle('HTML part of the mail "Passwort zurücksetzen"') as HTMLIFrameElement;
  expect(frame.tagName).toBe("IFRAME");
  // Sandboxed without allow-scripts: nothing in the mail runs.
  expect(frame.getAttribute("sandbox")).toBe("allow-same-origin");
  expect(frame.getAttribute("srcdoc")).toBe("<p>Passwort zurücksetzen</p>");
  expect(within(panel).getByTestId("mail-text").textContent).toBe("Passwort zurücksetzen\n\nhttps://id.example.test/reset");
  fireEvent.change(within(panel).getByLabelText("Mail"), { target: { value: "factor_locked" } });
  await waitFor(() =>
    expect(calls.filter((c) => c.path.endsWith("/preview")).map((c) => [c.path, c.query.get("locale")])).toEqual([
      ["/admin/mail-templates/password_reset/preview", "en"],
      ["/admin/mail-templates/password_reset/preview", "de"],
      ["/admin/mail-templates/factor_locked/preview", "de"],
    ]),
  );
});

test("read-only without idp:branding:write: the brand as facts, no form, no upload", async () => {
  grant(READ);
  fakeApi(routes());
  render(<App />);
  await screen.findByText("Acme ID");
  expect(screen.queryByRole("form", { name: "The provider's brand" })).toBeNull();
  expect(screen.queryByRole("form", { name: "Upload a logo" })).toBeNull();
  expect(screen.getByText("No logo yet: the sign-in page shows the product name alone.")).toBeTruthy();
});
