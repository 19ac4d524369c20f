// oauth4webapi as a device without a browser (RFC 8628): it asks for a user code at the
// device authorization endpoint (`deviceAuthorizationRequest`,
// `processDeviceAuthorizationResponse`), prints it, and polls the token endpoint
// (`deviceCodeGrantRequest`, `processDeviceCodeResponse`) until the person decides,
// waiting `interval` seconds between polls and 5 more after each `slow_down` (§3.5).
//
// Input (stdin, one JSON object): {"issuer", "client_id", "scope", "api_audience",
// "timeout" (seconds)}. Output (stdout), one JSON object a line:
//   {"event": "started", "user_code", "verification_uri", "verification_uri_complete",
//    "expires_in", "interval"}                         as soon as the codes are known;
//   {"event": "done", "discovery", "polls": [error codes seen], "device_code",
//    "id_token": {"header", "claims"}, "access_token": {"header", "claims"},
//    "refresh_token", "scope", "token_type"}          once tokens arrived; or
//   {"event": "refused", "polls", "error", "error_description"} when the server said no.
// Anything else: the error on stderr, exit 1.

import * as oauth from 'oauth4webapi'
import { readInput, verified } from './lib.mjs'

function emit(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000))

async function run(input) {
  const opts = { [oauth.allowInsecureRequests]: new URL(input.issuer).protocol === 'http:' }
  const issuer = new URL(input.issuer)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, opts))
  const client = { client_id: input.client_id }
  const auth = oauth.None()

  const started = await oauth.processDeviceAuthorizationResponse(
    as,
    client,
    await oauth.deviceAuthorizationRequest(as, client, auth, new URLSearchParams({ scope: input.scope }), opts),
  )
  emit({
    event: 'started',
    user_code: started.user_code,
    verification_uri: started.verification_uri,
    verification_uri_complete: started.verification_uri_complete,
    expires_in: started.expires_in,
    interval: started.interval,
  })

  let interval = started.interval ?? 5
  const polls = []
  const deadline = Date.now() + (input.timeout ?? 90) * 1000
  while (Date.now() < deadline) {
    await sleep(interval)
    const response = await oauth.deviceCodeGrantRequest(as, client, auth, started.device_code, opts)
    const copy = response.clone()
    let tokens
    try {
      tokens = await oauth.processDeviceCodeResponse(as, client, response)
    } catch (error) {
      if (!(error instanceof oauth.ResponseBodyError)) {
        throw new Error(`token endpoint: HTTP ${copy.status} ${await copy.text()}`, { cause: error })
      }
      polls.push(error.error)
      if (error.error === 'authorization_pending') continue
      if (error.error === 'slow_down') {
        interval += 5
        continue
      }
      emit({ event: 'refused', polls, error: error.error, error_description: error.error_description })
      return
    }
    polls.push('tokens')
    // The ID token's claims were checked by processDeviceCodeResponse; its signature here.
    if (tokens.id_token) await oauth.validateApplicationLevelSignature(as, response, opts)
    const request = new Request('http://api.invalid/orders', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    const accessClaims = await oauth.validateJwtAccessToken(as, request, input.api_audience, opts)
    emit({
      event: 'done',
      discovery: {
        device_authorization_endpoint: as.device_authorization_endpoint,
        grant_types_supported: as.grant_types_supported,
      },
      polls,
      device_code: started.device_code,
      id_token: tokens.id_token ? verified(tokens.id_token, oauth.getValidatedIdTokenClaims(tokens)) : null,
      access_token: verified(tokens.access_token, accessClaims),
      refresh_token: tokens.refresh_token ?? null,
      scope: tokens.scope,
      token_type: tokens.token_type,
    })
    return
  }
  throw new Error(`no decision within ${input.timeout ?? 90} s; polls: ${polls.join(', ')}`)
}

try {
  await run(await readInput())
} catch (error) {
  process.stderr.write(`${error?.stack ?? String(error)}\n${error?.cause ? JSON.stringify(error.cause) : ''}\n`)
  process.exitCode = 1
}
