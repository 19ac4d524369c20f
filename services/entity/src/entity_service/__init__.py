"""The self-service API: ``/entity/*`` and ``/media/*`` (contract §4 "Self-service"): a
person's profile and photo, password, authenticator and face, sessions, connected
applications and permissions; ``/media/*`` serves published photos."""
