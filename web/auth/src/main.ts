/**
 * Hosted sign-in page, served by the proxy under /auth/ (docs/frontends.md). Routes:
 * `/auth/login?challenge=…` (password, code, consent steps), `/auth/reset`,
 * `/auth/reset?token=…`, `/auth/logged-out`, `/auth/device` (RFC 8628); see src/router.ts.
 * First the language (src/i18n.ts) and the switcher, then the screen.
 */
import "./style.css";
import { mountSwitcher } from "./chrome";
import { initialLocale, setLocale, t } from "./i18n";
import { route } from "./router";
import { showErrorPage } from "./screens/message";

async function start(): Promise<void> {
  await setLocale(initialLocale());
  const loading = document.querySelector("#app .status");
  if (loading !== null) {
    loading.textContent = t("page.loading");
  }
  mountSwitcher();
  await route(window.location);
}

start().catch(() => showErrorPage("unexpected"));
