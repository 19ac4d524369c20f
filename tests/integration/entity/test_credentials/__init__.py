"""``POST /entity/credentials/password`` and ``/email`` (contract §4; issue 5 acceptance 1, 4
and 5): the current password, the recent sign-in (RFC 9470), the policy, every session
ended with the fan-out on a password change, the email's uniqueness and the notice."""
