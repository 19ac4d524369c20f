// oauth4webapi authenticating a client by a JWT assertion (RFC 7523 §2.2, OIDC Core §9):
// `PrivateKeyJwt` (the private JWK given, imported with jose) or `ClientSecretJwt` (the
// secret given). One step, "client_credentials": discovery, the client_credentials grant,
// then introspection of the access token with a fresh assertion. oauth4webapi signs with
// `aud` = the issuer identifier (RFC 7523bis), 60 s lifetime, a random `jti`.
//
// Input: {"step": "client_credentials", "issuer", "client_id", "scope",
//         "jwk" (private, with "alg" and "kid") | "client_secret"}
// Output: {"token": the token response, "introspection": the introspection answer,
//          "auth_methods": discovery's token_endpoint_auth_methods_supported}

import * as oauth from 'oauth4webapi'
import { importJWK } from 'jose'
import { main, must } from './lib.mjs'

function options(input) {
  return { [oauth.allowInsecureRequests]: new URL(input.issuer).protocol === 'http:' }
}

async function clientAuth(input) {
  if (input.client_secret) return oauth.ClientSecretJwt(input.client_secret)
  const key = await importJWK(input.jwk, input.jwk.alg)
  return oauth.PrivateKeyJwt({ key, kid: input.jwk.kid })
}

async function clientCredentials(input) {
  const issuer = new URL(input.issuer)
  const opts = options(input)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, opts))
  const client = { client_id: input.client_id }
  const auth = await clientAuth(input)
  const response = await oauth.clientCredentialsGrantRequest(
    as, client, auth, new URLSearchParams({ scope: input.scope }), opts,
  )
  const token = await oauth.processClientCredentialsResponse(as, client, response)
  must(token.access_token, 'no access token')
  const answer = await oauth.introspectionRequest(as, client, auth, token.access_token, opts)
  const introspection = await oauth.processIntrospectionResponse(as, client, answer)
  return { token, introspection, auth_methods: as.token_endpoint_auth_methods_supported }
}

await main({ client_credentials: clientCredentials })
