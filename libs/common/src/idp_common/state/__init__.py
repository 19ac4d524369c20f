"""State kept in Redis: browser sessions and challenges, rate limits, the revocation list,
change stamps and the batching of Redis calls. May import config, errors, protocol, crypto."""
