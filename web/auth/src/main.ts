/**
 * Hosted sign-in page, served by the proxy under /auth/ (docs/frontends.md). Routes:
 * `/auth/login?challenge=…` (password, code, consent steps), `/auth/reset`,
 * `/auth/reset?token=…`, `/auth/logged-out`, `/auth/device` (RFC 8628); see src/router.ts.
 */
import "./style.css";
import { route } from "./router";
import { showErrorPage } from "./screens/message";

route(window.location).catch(() => showErrorPage("unexpected"));
