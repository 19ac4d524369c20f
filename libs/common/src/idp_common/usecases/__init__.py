"""Use cases that span tables and services (ending sessions, the photos a person published),
one function each, used by every service that needs them. May import every layer below it:
events, state, face, avatars, profile_fields, storage, config, protocol, crypto, errors."""
