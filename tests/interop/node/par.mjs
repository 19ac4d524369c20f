// oauth4webapi's pushed authorization requests (RFC 9126) and, for a FAPI 2.0 client, its
// private_key_jwt client authentication and DPoP (RFC 9449), as a relying party does them.
//
// Input (stdin, JSON): {"step": "push" | "redeem", "issuer", "client_id", "redirect_uri",
// "scope", and either "client_secret" (client_secret_basic) or "private_jwk" (an ES256
// private JWK with its "kid": private_key_jwt)}; "dpop": true sends DPoP proofs at the
// token and userinfo endpoints (a key pair made in "redeem"). "redeem" adds "callback" and
// the "verifier", "state" and "nonce" that "push" returned under "checks".
// Output: "push" → {"request_uri", "expires_in", "url" (the authorization URL: client_id and
// request_uri only), "checks"}; "redeem" → {"iss" (of the callback, which the library
// checked), "token_type", "id_token" {header, claims}, "access_token" {header, claims}
// (decoded; the signature is the other interop tests' subject), "userinfo"}.

import * as oauth from 'oauth4webapi'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { main } from './lib.mjs'

function options(input, extra = {}) {
  return { [oauth.allowInsecureRequests]: new URL(input.issuer).protocol === 'http:', ...extra }
}

async function discover(input) {
  const issuer = new URL(input.issuer)
  const response = await oauth.discoveryRequest(issuer, options(input))
  return oauth.processDiscoveryResponse(issuer, response)
}

async function clientAuth(input) {
  if (!input.private_jwk) return oauth.ClientSecretBasic(input.client_secret)
  const { kid, ...jwk } = input.private_jwk
  const key = await crypto.subtle.importKey(
    'jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'],
  )
  return oauth.PrivateKeyJwt({ key, kid })
}

async function push(input) {
  const as = await discover(input)
  const client = { client_id: input.client_id }
  const verifier = oauth.generateRandomCodeVerifier()
  const checks = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() }
  const params = new URLSearchParams({
    response_type: 'code',
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  })
  const response = await oauth.pushedAuthorizationRequest(
    as, client, await clientAuth(input), params, options(input),
  )
  const pushed = await oauth.processPushedAuthorizationResponse(as, client, response)
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({ client_id: input.client_id, request_uri: pushed.request_uri }).toString()
  return { request_uri: pushed.request_uri, expires_in: pushed.expires_in, url: url.href, checks }
}

function decoded(token) {
  return { header: decodeProtectedHeader(token), claims: decodeJwt(token) }
}

async function redeem(input) {
  const as = await discover(input)
  const client = { client_id: input.client_id }
  const DPoP = input.dpop ? oauth.DPoP(client, await oauth.generateKeyPair('ES256')) : undefined
  const opts = options(input, DPoP ? { DPoP } : {})
  const callback = new URL(input.callback)
  const params = oauth.validateAuthResponse(as, client, callback, input.state)
  const auth = await clientAuth(input)
  const request = () => oauth.authorizationCodeGrantRequest(
    as, client, auth, params, input.redirect_uri, input.verifier, opts,
  )
  let response = await request()
  let tokens
  try {
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: input.nonce,
      requireIdToken: true,
    })
  } catch (error) {
    if (!(DPoP && oauth.isDPoPNonceError(error))) throw error
    response = await request() // RFC 9449 §8: once more with the server's nonce
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: input.nonce,
      requireIdToken: true,
    })
  }
  const claims = oauth.getValidatedIdTokenClaims(tokens)
  const userinfoResponse = await oauth.userInfoRequest(as, client, tokens.access_token, opts)
  const userinfo = await oauth.processUserInfoResponse(as, client, claims.sub, userinfoResponse)
  return {
    iss: callback.searchParams.get('iss'),
    token_type: tokens.token_type,
    id_token: decoded(tokens.id_token),
    access_token: decoded(tokens.access_token),
    userinfo,
  }
}

await main({ push, redeem })
