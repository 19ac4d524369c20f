"""Passkeys (WebAuthn; docs/passkeys.md): the relying party of this deployment
and its two ceremonies (:mod:`.ceremony`), over py_webauthn."""
