// openid-client (v6) as an application's relying party. Configured for the algorithm
// under test through the client metadata (`id_token_signed_response_alg`,
// `userinfo_signed_response_alg`); `enableNonRepudiationChecks` makes it verify the JWS of
// ID tokens and signed userinfo against the issuer's JWKS (without it, openid-client
// trusts the TLS channel and checks only the claims). The access tokens are verified as
// an API would, with jose's `jwtVerify` and a remote JWKS (openid-client has no resource
// server side). `allowInsecureRequests` only when the issuer is http (the test origin).

import * as client from 'openid-client'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { discoverySummary, main, must, verified } from './lib.mjs'

async function configure(input, seen = {}) {
  const metadata = { id_token_signed_response_alg: input.alg }
  if (input.userinfo_alg) metadata.userinfo_signed_response_alg = input.userinfo_alg
  const execute = [client.enableNonRepudiationChecks]
  if (new URL(input.issuer).protocol === 'http:') execute.unshift(client.allowInsecureRequests)
  // Keeps a copy of the userinfo response, so that the result can show its JWS header.
  const recording = async (url, options) => {
    const response = await fetch(url, options)
    if (url.endsWith('/userinfo')) seen.userinfo = response.clone()
    return response
  }
  return client.discovery(
    new URL(input.issuer),
    input.client_id,
    metadata,
    client.ClientSecretBasic(input.client_secret),
    { execute, [client.customFetch]: recording },
  )
}

async function authorize(input) {
  const config = await configure(input)
  const verifier = client.randomPKCECodeVerifier()
  const checks = { verifier, state: client.randomState(), nonce: client.randomNonce() }
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  })
  return { url: url.href, checks }
}

async function redeem(input) {
  const seen = {}
  const config = await configure(input, seen)
  const server = config.serverMetadata()
  const jwks = createRemoteJWKSet(new URL(server.jwks_uri))
  const accessToken = async (token, audience) => {
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: [input.alg],
      issuer: server.issuer,
      audience,
      typ: 'at+jwt',
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
    })
    return verified(token, payload)
  }

  const tokens = await client.authorizationCodeGrant(config, new URL(input.callback), {
    pkceCodeVerifier: input.verifier,
    expectedState: input.state,
    expectedNonce: input.nonce,
    idTokenExpected: true,
  })
  const idClaims = tokens.claims()
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)
  const signed = seen.userinfo?.headers.get('content-type')?.startsWith('application/jwt')
  must(signed === Boolean(input.userinfo_alg), `userinfo content-type ${seen.userinfo?.headers.get('content-type')}`)

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token)
  const machine = await client.clientCredentialsGrant(config, { scope: input.api_scope })

  return {
    discovery: discoverySummary(server),
    nonce: input.nonce,
    id_token: verified(tokens.id_token, idClaims),
    access_token: await accessToken(tokens.access_token, input.api_audience),
    userinfo: {
      header: signed ? verified(await seen.userinfo.text(), userinfo).header : null,
      claims: userinfo,
    },
    refresh: {
      spent: tokens.refresh_token,
      refresh_token: refreshed.refresh_token,
      access_token: await accessToken(refreshed.access_token, input.api_audience),
      id_token: refreshed.id_token ? verified(refreshed.id_token, refreshed.claims()) : null,
    },
    client_credentials: {
      access_token: await accessToken(machine.access_token, input.api_audience),
    },
  }
}

await main({ authorize, redeem })
