// A single-page application on an origin of its own (issue #27, acceptance 3): the code
// flow with PKCE through oauth4webapi in the browser, then userinfo, all with fetch() from
// this origin to the provider's, so CORS decides what the page may read. It reports in
// #status and in <body data-outcome>: "signed-in" (with the userinfo JSON in #userinfo),
// "cors-refused" (the token call failed as the Fetch standard fails a CORS refusal: a
// TypeError, no response to read) or "failed".
import * as oauth from '/oauth4webapi.js'

const statusLine = document.getElementById('status')
const report = (outcome, text) => {
  statusLine.textContent = text
  document.body.dataset.outcome = outcome
}

const config = await (await fetch('/config.json')).json()
const issuer = new URL(config.issuer)
const client = { client_id: config.client_id }
const redirectUri = `${location.origin}/callback`
const options = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' }

async function discover() {
  const response = await oauth.discoveryRequest(issuer, options)
  return oauth.processDiscoveryResponse(issuer, response)
}

async function signIn() {
  const as = await discover()
  const verifier = oauth.generateRandomCodeVerifier()
  const checks = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() }
  sessionStorage.setItem('checks', JSON.stringify(checks))
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  }).toString()
  location.assign(url.href)
}

async function callback() {
  const as = await discover()
  const checks = JSON.parse(sessionStorage.getItem('checks'))
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), checks.state)
  let response
  try {
    response = await oauth.authorizationCodeGrantRequest(
      as, client, oauth.None(), params, redirectUri, checks.verifier, options,
    )
  } catch (error) {
    // fetch() rejects with a TypeError when the answer is not shared with this origin.
    const refused = error instanceof TypeError || error?.cause instanceof TypeError
    report(refused ? 'cors-refused' : 'failed', `token call failed: ${error.name}: ${error.message}`)
    return
  }
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: checks.nonce,
    requireIdToken: true,
  })
  const claims = oauth.getValidatedIdTokenClaims(tokens)
  const info = await oauth.userInfoRequest(as, client, tokens.access_token, options)
  const userinfo = await oauth.processUserInfoResponse(as, client, claims.sub, info)
  document.getElementById('userinfo').textContent = JSON.stringify(userinfo)
  report('signed-in', `signed in as ${userinfo.email}`)
}

try {
  if (location.pathname === '/callback') {
    await callback()
  } else {
    const button = document.getElementById('sign-in')
    button.addEventListener('click', () => signIn().catch((e) => report('failed', String(e))))
    button.hidden = false
    report('ready', 'Not signed in')
  }
} catch (error) {
  report('failed', `${error.name}: ${error.message}`)
}
