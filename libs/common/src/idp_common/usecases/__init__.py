"""Use cases that span tables and services (ending sessions, the photos a person published),
one function each, used by every service that needs them. May import storage, state, events."""
