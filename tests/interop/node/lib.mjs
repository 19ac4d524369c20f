// What the three Node relying parties share: reading the JSON input, printing the JSON
// result, failing loudly, and the shape of a verified token in the result.
//
// Input (stdin, one JSON object): {"step": "authorize" | "redeem", "issuer", "client_id",
// "client_secret", "redirect_uri", "scope", "alg", "userinfo_alg" (null: JSON userinfo),
// "api_audience", "api_scope"}; "redeem" adds "callback" (the redirect URI with the code)
// and the "verifier", "state" and "nonce" that "authorize" returned under "checks".
// Output (stdout): "authorize" → {"url", "checks"}; "redeem" → the result described in
// tests/interop/support.py. Any failure: the error, its code and cause on stderr, exit 1.

import { decodeProtectedHeader } from 'jose'

export async function readInput() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function describe(error) {
  const lines = [error?.stack ?? String(error)]
  if (error?.code) lines.push(`code: ${error.code}`)
  if (error?.error) lines.push(`error: ${error.error} ${error.error_description ?? ''}`)
  if (error?.cause !== undefined) {
    lines.push(`cause: ${error.cause instanceof Error ? describe(error.cause) : safeJson(error.cause)}`)
  }
  return lines.join('\n')
}

function safeJson(value) {
  try {
    return JSON.stringify(value, null, 2)
  } catch {
    return String(value)
  }
}

// Runs the script's steps: `steps` maps a step name to an async function of the input.
export async function main(steps) {
  try {
    const input = await readInput()
    const step = steps[input.step]
    if (!step) throw new Error(`unknown step ${JSON.stringify(input.step)}`)
    process.stdout.write(JSON.stringify(await step(input)))
  } catch (error) {
    process.stderr.write(`${describe(error)}\n`)
    process.exitCode = 1
  }
}

// A token the library verified: its protected header (read after the verification) and
// the claims the library returned.
export function verified(token, claims) {
  return { header: decodeProtectedHeader(token), claims }
}

export function must(condition, message) {
  if (!condition) throw new Error(message)
}

// The discovery members the test asserts on.
export function discoverySummary(metadata) {
  return {
    issuer: metadata.issuer,
    id_token_signing_alg_values_supported: metadata.id_token_signing_alg_values_supported,
    userinfo_signing_alg_values_supported: metadata.userinfo_signing_alg_values_supported ?? null,
  }
}
