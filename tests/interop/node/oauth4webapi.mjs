// oauth4webapi as an application's relying party and as an API's resource server. The
// client metadata names the algorithm under test (`id_token_signed_response_alg`,
// `userinfo_signed_response_alg`); `validateApplicationLevelSignature` verifies the JWS of
// ID tokens and signed userinfo with the issuer's JWKS (the processing functions check the
// claims and the `alg`); `validateJwtAccessToken` is its RFC 9068 validation of an access
// token presented to an API, with `signingAlgorithms` set to the algorithm under test.
// `allowInsecureRequests` only when the issuer is http (the test origin).

import * as oauth from 'oauth4webapi'
import { discoverySummary, main, must, verified } from './lib.mjs'

function options(input) {
  return { [oauth.allowInsecureRequests]: new URL(input.issuer).protocol === 'http:' }
}

async function discover(input) {
  const issuer = new URL(input.issuer)
  const response = await oauth.discoveryRequest(issuer, options(input))
  return oauth.processDiscoveryResponse(issuer, response)
}

function clientOf(input) {
  const metadata = { client_id: input.client_id, id_token_signed_response_alg: input.alg }
  if (input.userinfo_alg) metadata.userinfo_signed_response_alg = input.userinfo_alg
  return metadata
}

async function authorize(input) {
  const as = await discover(input)
  const verifier = oauth.generateRandomCodeVerifier()
  const checks = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() }
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: input.client_id,
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  }).toString()
  return { url: url.href, checks }
}

async function redeem(input) {
  const as = await discover(input)
  const client = clientOf(input)
  const auth = oauth.ClientSecretBasic(input.client_secret)
  const opts = options(input)
  // What an API does with the bearer token of a request it receives.
  const accessToken = async (token) => {
    const request = new Request('http://api.invalid/orders', {
      headers: { authorization: `Bearer ${token}` },
    })
    const claims = await oauth.validateJwtAccessToken(as, request, input.api_audience, {
      ...opts,
      signingAlgorithms: [input.alg],
    })
    return verified(token, claims)
  }

  const params = oauth.validateAuthResponse(as, client, new URL(input.callback), input.state)
  const codeResponse = await oauth.authorizationCodeGrantRequest(
    as, client, auth, params, input.redirect_uri, input.verifier, opts,
  )
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
    expectedNonce: input.nonce,
    requireIdToken: true,
  })
  await oauth.validateApplicationLevelSignature(as, codeResponse, opts)
  const idClaims = oauth.getValidatedIdTokenClaims(tokens)

  const userinfoResponse = await oauth.userInfoRequest(as, client, tokens.access_token, opts)
  const body = await userinfoResponse.clone().text()
  const userinfo = await oauth.processUserInfoResponse(as, client, idClaims.sub, userinfoResponse)
  const signed = oauth.getContentType(userinfoResponse) === 'application/jwt'
  must(signed === Boolean(input.userinfo_alg), `userinfo content-type ${oauth.getContentType(userinfoResponse)}`)
  if (signed) await oauth.validateApplicationLevelSignature(as, userinfoResponse, opts)

  const refreshResponse = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, opts)
  const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshResponse)
  if (refreshed.id_token) await oauth.validateApplicationLevelSignature(as, refreshResponse, opts)

  const machineResponse = await oauth.clientCredentialsGrantRequest(
    as, client, auth, new URLSearchParams({ scope: input.api_scope }), opts,
  )
  const machine = await oauth.processClientCredentialsResponse(as, client, machineResponse)

  return {
    discovery: discoverySummary(as),
    nonce: input.nonce,
    id_token: verified(tokens.id_token, idClaims),
    access_token: await accessToken(tokens.access_token),
    userinfo: { header: signed ? verified(body, userinfo).header : null, claims: userinfo },
    refresh: {
      spent: tokens.refresh_token,
      refresh_token: refreshed.refresh_token,
      access_token: await accessToken(refreshed.access_token),
      id_token: refreshed.id_token
        ? verified(refreshed.id_token, oauth.getValidatedIdTokenClaims(refreshed))
        : null,
    },
    client_credentials: { access_token: await accessToken(machine.access_token) },
  }
}

await main({ authorize, redeem })
