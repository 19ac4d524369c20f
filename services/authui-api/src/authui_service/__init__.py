"""The sign-in API: /api/v1/auth/*. Routes arrive with their issues; for now health only."""
