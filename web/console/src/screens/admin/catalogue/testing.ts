/**
 * What the client screens' tests share: a client as `GET /admin/clients/{id}` answers it, a
 * public single-page application by default, with the members a test names changed.
 */
import type { Client } from "./common";

export const clientOf = (more: Partial<Client> = {}): Client => ({
  client_id: "orders-spa",
  name: "Orders SPA",
  type: "public",
  redirectUris: ["https://orders.example/callback"],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  grantTypes: ["authorization_code", "refresh_token"],
  skipConsent: false,
  disabled: false,
  scopes: [],
  createdAt: "2026-11-28T00:00:00Z",
  updatedAt: "2026-11-28T00:00:00Z",
  id_token_signed_response_alg: "RS256",
  userinfo_signed_response_alg: null,
  token_endpoint_auth_method: "none",
  jwks: null,
  jwks_uri: null,
  require_pushed_authorization_requests: false,
  dpop_bound_access_tokens: false,
  securityProfile: null,
  tokenExchangeAudiences: [],
  allowedWebOrigins: [],
  ...more,
});
