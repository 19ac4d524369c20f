// jose (panva) as the token verifier of an application that speaks OAuth with plain
// `fetch`: discovery, the code flow with PKCE, the token requests and userinfo are HTTP
// here; every token is verified by `jwtVerify` against `createRemoteJWKSet(jwks_uri)` with
// `algorithms` set to the algorithm under test, the issuer, the audience and (access
// tokens, RFC 9068 §4) `typ: at+jwt`. The ID token's nonce (OIDC Core §3.1.3.7 item 11)
// and the state are compared here, as such an application does.

import { createHash, randomBytes } from 'node:crypto'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { discoverySummary, main, must, verified } from './lib.mjs'

const random = () => randomBytes(32).toString('base64url')

async function discover(input) {
  const response = await fetch(new URL('.well-known/openid-configuration', `${input.issuer}/`))
  must(response.status === 200, `discovery: HTTP ${response.status}`)
  const metadata = await response.json()
  must(metadata.issuer === input.issuer, `discovery: issuer ${metadata.issuer}`)
  return metadata
}

async function authorize(input) {
  const metadata = await discover(input)
  const checks = { verifier: random(), state: random(), nonce: random() }
  const url = new URL(metadata.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: input.client_id,
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    code_challenge: createHash('sha256').update(checks.verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  }).toString()
  return { url: url.href, checks }
}

async function tokenRequest(metadata, input, form) {
  const basic = Buffer.from(
    `${encodeURIComponent(input.client_id)}:${encodeURIComponent(input.client_secret)}`,
  ).toString('base64')
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
    body: new URLSearchParams(form),
  })
  const body = await response.json()
  must(response.status === 200, `${form.grant_type}: HTTP ${response.status} ${JSON.stringify(body)}`)
  must(body.token_type.toLowerCase() === 'bearer', `${form.grant_type}: token_type ${body.token_type}`)
  return body
}

async function redeem(input) {
  const metadata = await discover(input)
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri))
  const verify = async (token, options) => {
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: [input.alg],
      issuer: metadata.issuer,
      ...options,
    })
    return verified(token, payload)
  }
  const idToken = (token) =>
    verify(token, { audience: input.client_id, requiredClaims: ['sub', 'exp', 'iat'] })
  const accessToken = (token) =>
    verify(token, {
      audience: input.api_audience,
      typ: 'at+jwt',
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
    })

  const callback = new URL(input.callback).searchParams
  must(callback.get('state') === input.state, `state ${callback.get('state')}`)
  must(callback.get('iss') === metadata.issuer, `iss ${callback.get('iss')}`) // RFC 9207
  const tokens = await tokenRequest(metadata, input, {
    grant_type: 'authorization_code',
    code: callback.get('code'),
    redirect_uri: input.redirect_uri,
    code_verifier: input.verifier,
  })
  const id = await idToken(tokens.id_token)
  must(id.claims.nonce === input.nonce, `nonce ${id.claims.nonce}`)

  const userinfoResponse = await fetch(metadata.userinfo_endpoint, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  })
  must(userinfoResponse.status === 200, `userinfo: HTTP ${userinfoResponse.status}`)
  const signed = userinfoResponse.headers.get('content-type')?.startsWith('application/jwt')
  must(signed === Boolean(input.userinfo_alg), `userinfo content-type ${userinfoResponse.headers.get('content-type')}`)
  const userinfo = signed
    ? await verify(await userinfoResponse.text(), { audience: input.client_id })
    : { header: null, claims: await userinfoResponse.json() }
  must(userinfo.claims.sub === id.claims.sub, `userinfo sub ${userinfo.claims.sub}`)

  const refreshed = await tokenRequest(metadata, input, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  })
  const machine = await tokenRequest(metadata, input, {
    grant_type: 'client_credentials',
    scope: input.api_scope,
  })

  return {
    discovery: discoverySummary(metadata),
    nonce: input.nonce,
    id_token: id,
    access_token: await accessToken(tokens.access_token),
    userinfo,
    refresh: {
      spent: tokens.refresh_token,
      refresh_token: refreshed.refresh_token,
      access_token: await accessToken(refreshed.access_token),
      id_token: refreshed.id_token ? await idToken(refreshed.id_token) : null,
    },
    client_credentials: { access_token: await accessToken(machine.access_token) },
  }
}

await main({ authorize, redeem })
