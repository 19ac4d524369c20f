// oauth4webapi's DPoP (RFC 9449) against the provider: a public client's code flow with
// PKCE and a DPoP key (`oauth.DPoP(client, keyPair)`), userinfo with the DPoP scheme, a
// refresh with the same key, a refresh with another key (refused: the public client's
// refresh token is bound), and a confidential client's client_credentials with DPoP used
// at `/admin/*` (`protectedResourceRequest`) and validated as an API would, offline
// (`validateJwtAccessToken` checks `cnf.jkt` against the proof's key, and the proof).
// Every call retries once on `use_dpop_nonce` (the library caches the nonce it was given).
//
// Input: {"step": "authorize" | "redeem", "issuer", "public": {"client_id",
// "redirect_uri", "scope"}, "machine": {"client_id", "client_secret", "scope"},
// "api_audience"}; "redeem" adds "callback", "verifier", "state", "nonce".

import * as oauth from 'oauth4webapi'
import { main, must, verified } from './lib.mjs'

function options(input, extra = {}) {
  return { [oauth.allowInsecureRequests]: new URL(input.issuer).protocol === 'http:', ...extra }
}

async function discover(input) {
  const issuer = new URL(input.issuer)
  const response = await oauth.discoveryRequest(issuer, options(input))
  return oauth.processDiscoveryResponse(issuer, response)
}

// RFC 9449 §8: a first answer `use_dpop_nonce` carries the nonce; the handle cached it.
async function withNonceRetry(call) {
  try {
    return await call()
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error
    return call()
  }
}

async function authorize(input) {
  const as = await discover(input)
  const verifier = oauth.generateRandomCodeVerifier()
  const checks = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() }
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: input.public.client_id,
    redirect_uri: input.public.redirect_uri,
    scope: input.public.scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  }).toString()
  return { url: url.href, checks }
}

async function codeFlow(as, input) {
  const client = { client_id: input.public.client_id }
  const auth = oauth.None()
  const keyPair = await oauth.generateKeyPair('ES256')
  const DPoP = oauth.DPoP(client, keyPair)
  const jkt = await DPoP.calculateThumbprint()
  const opts = options(input, { DPoP })
  const params = oauth.validateAuthResponse(as, client, new URL(input.callback), input.state)
  const tokens = await withNonceRetry(async () => {
    const response = await oauth.authorizationCodeGrantRequest(
      as, client, auth, params, input.public.redirect_uri, input.verifier, opts,
    )
    return oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: input.nonce,
      requireIdToken: true,
    })
  })
  must(tokens.token_type === 'dpop', `code grant token_type ${tokens.token_type}`)
  const idClaims = oauth.getValidatedIdTokenClaims(tokens)
  const userinfo = await withNonceRetry(async () => {
    const response = await oauth.userInfoRequest(as, client, tokens.access_token, opts)
    return oauth.processUserInfoResponse(as, client, idClaims.sub, response)
  })
  const refreshed = await withNonceRetry(async () => {
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, opts)
    return oauth.processRefreshTokenResponse(as, client, response)
  })
  must(refreshed.token_type === 'dpop', `refresh token_type ${refreshed.token_type}`)
  // Another key: the refresh token is bound to the first one (RFC 9449 §5).
  const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'))
  let stolen = null
  try {
    await withNonceRetry(async () => {
      const response = await oauth.refreshTokenGrantRequest(
        as, client, auth, refreshed.refresh_token, options(input, { DPoP: thief }),
      )
      return oauth.processRefreshTokenResponse(as, client, response)
    })
  } catch (error) {
    stolen = { error: error.error ?? null, status: error.status ?? null }
  }
  return {
    jkt,
    token_type: tokens.token_type,
    access_token: verified(tokens.access_token, decodeClaims(tokens.access_token)),
    userinfo,
    refresh: {
      token_type: refreshed.token_type,
      access_token: verified(refreshed.access_token, decodeClaims(refreshed.access_token)),
    },
    refresh_with_another_key: stolen,
  }
}

async function machineFlow(as, input) {
  const client = { client_id: input.machine.client_id }
  const auth = oauth.ClientSecretBasic(input.machine.client_secret)
  const keyPair = await oauth.generateKeyPair('ES256')
  const DPoP = oauth.DPoP(client, keyPair)
  const opts = options(input, { DPoP })
  const tokens = await withNonceRetry(async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as, client, auth, new URLSearchParams({ scope: input.machine.scope }), opts,
    )
    return oauth.processClientCredentialsResponse(as, client, response)
  })
  must(tokens.token_type === 'dpop', `client_credentials token_type ${tokens.token_type}`)
  const adminUrl = new URL(`${input.issuer.replace(/\/$/, '')}/admin/clients?limit=1`)
  const admin = await withNonceRetry(() =>
    oauth.protectedResourceRequest(tokens.access_token, 'GET', adminUrl, undefined, null, opts),
  )
  // An API validating a request it received, offline: the JWT, then the proof and cnf.jkt.
  const apiUrl = new URL('https://api.example/orders?page=2')
  const headers = new Headers({ authorization: `DPoP ${tokens.access_token}` })
  await DPoP.addProof(apiUrl, headers, 'GET', tokens.access_token)
  const request = new Request(apiUrl, { headers })
  const claims = await oauth.validateJwtAccessToken(as, request, input.api_audience, {
    ...options(input),
    requireDPoP: true,
  })
  // The same token as a Bearer token at /admin: refused (RFC 9449 §7.2).
  const bearer = await oauth.protectedResourceRequest(
    tokens.access_token, 'GET', adminUrl, undefined, null, options(input),
  ).then(
    (response) => ({ status: response.status }),
    (error) => ({ status: error.response?.status ?? null, challenges: error.cause ?? null }),
  )
  return {
    jkt: await DPoP.calculateThumbprint(),
    token_type: tokens.token_type,
    admin_status: admin.status,
    api_claims: claims,
    bearer,
  }
}

function decodeClaims(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'))
}

async function redeem(input) {
  const as = await discover(input)
  return {
    dpop_signing_alg_values_supported: as.dpop_signing_alg_values_supported ?? null,
    code: await codeFlow(as, input),
    machine: await machineFlow(as, input),
  }
}

await main({ authorize, redeem })
