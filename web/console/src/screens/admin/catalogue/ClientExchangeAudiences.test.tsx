// @vitest-environment happy-dom
/**
 * The client form's token exchange audiences: one checkbox per API, never the provider's
 * own (`idp`, `{issuer}/api`: the API refuses it); a client that stores it from before
 * still shows it, ticked, so that it can be unticked.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { ClientForm, type ClientSettings } from "./ClientForm";
import type { Client } from "./common";
import { clientOf } from "./testing";

const ISSUER = "https://id.example";
const OWN_API = `${ISSUER}/api`;
const BILLING = "urn:billing";

vi.mock("../../../auth/session", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../auth/session")>()),
  signedIn: () => ({
    accessToken: "access-token",
    idToken: "id-token",
    refreshToken: null,
    expiresAt: Date.now() + 3_600_000,
    scopes: new Set(["idp:apis:read", "idp:clients:write"]),
    identity: { sub: "admin-1", name: "Ada Admin", email: "ada@example.test" },
  }),
}));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const api = (name: string, audience: string) => ({
  id: `id-${name}`,
  name,
  audience,
  accessTokenSigningAlg: "RS256",
  createdAt: "2026-11-28T00:00:00Z",
  updatedAt: "2026-11-28T00:00:00Z",
});

/** `GET /admin/apis` answers the provider's own API and billing; anything else is 404. */
function fakeApis(): void {
  vi.stubGlobal("fetch", async (input: string) => {
    const path = new URL(input, "http://localhost").pathname;
    const found = path === "/admin/apis";
    const body = found ? { items: [api("idp", OWN_API), api("billing", BILLING)], nextCursor: null } : {};
    return new Response(JSON.stringify(body), {
      status: found ? 200 : 404,
      headers: { "Content-Type": "application/json" },
    });
  });
}

const service = (tokenExchangeAudiences: string[]): Client =>
  clientOf({
    client_id: "orders-service",
    name: "Orders service",
    type: "confidential",
    redirectUris: [],
    grantTypes: ["urn:ietf:params:oauth:grant-type:token-exchange"],
    token_endpoint_auth_method: "client_secret_basic",
    tokenExchangeAudiences,
  });

async function renderForm(client: Client) {
  fakeApis();
  const onSubmit = vi.fn<(settings: ClientSettings) => Promise<string | null>>(async () => "Saved.");
  render(<ClientForm client={client} label="Client settings" submitLabel="Save client" onSubmit={onSubmit} />);
  const form = screen.getByRole("form", { name: "Client settings" });
  await within(form).findByLabelText(`billing (${BILLING})`);
  return { form, onSubmit };
}

test("the provider's own API is not offered as an exchange audience", async () => {
  const { form, onSubmit } = await renderForm(service([]));
  expect(within(form).queryByLabelText(`idp (${OWN_API})`)).toBeNull();
  expect(within(form).queryByLabelText(OWN_API)).toBeNull();

  fireEvent.click(within(form).getByLabelText(`billing (${BILLING})`));
  fireEvent.click(within(form).getByRole("button", { name: "Save client" }));
  await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
  expect(onSubmit.mock.calls[0]?.[0].tokenExchangeAudiences).toEqual([BILLING]);
});

test("a stored own API audience shows, ticked, to be unticked", async () => {
  const { form, onSubmit } = await renderForm(service([BILLING, OWN_API]));
  expect(within(form).queryByLabelText(`idp (${OWN_API})`)).toBeNull();
  const stored = within(form).getByLabelText(OWN_API) as HTMLInputElement;
  expect(stored.checked).toBe(true);

  fireEvent.click(stored);
  fireEvent.click(within(form).getByRole("button", { name: "Save client" }));
  await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
  expect(onSubmit.mock.calls[0]?.[0].tokenExchangeAudiences).toEqual([BILLING]);
});
