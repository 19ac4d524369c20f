/**
 * Administration and self-service dashboard (`/console/*`).
 *
 * For now a static page: the "Sign in" link points at `/oauth2/authorize` without
 * parameters. The console issue chooses the UI framework and replaces the link with an
 * authorization-code + PKCE flow for the seeded public client `console`
 * (redirect URI `{SVC_ISSUER}/console/callback`, DESIGN.md §2).
 */
import "./style.css";

// Marks that the script ran, for styles that only apply once the app is in charge.
document.documentElement.classList.add("js");
