"""The self-service API: /entity/* and /media/*.

Routes arrive with their issues; for now health only."""
