/**
 * A tiny router: the proxy answers every path under /auth/ with index.html, so the page
 * picks its screen from `location.pathname` (and the query string) once, at load.
 */
import { readChallenge, readToken } from "./challenge";
import { showProviderBrand } from "./chrome";
import { readUserCode } from "./device-code";
import { showDevice } from "./screens/device";
import { showErrorPage, showLoggedOut } from "./screens/message";
import { showResetConfirm } from "./screens/reset-confirm";
import { showResetRequest } from "./screens/reset-request";
import { startSignIn } from "./signin";

const BASE = import.meta.env.BASE_URL; // "/auth/"

/** The path below the base, without a trailing slash: "/auth/login/" -> "login". */
export function routeOf(pathname: string): string {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname.replace(/^\//, "");
  return path.replace(/\/+$/, "");
}

export async function route(location: Location): Promise<void> {
  const path = routeOf(location.pathname);
  if (path !== "" && path !== "login") {
    // No challenge here: the provider's brand (the sign-in flow shows its client's).
    void showProviderBrand();
  }
  switch (path) {
    case "":
    case "login": {
      const challenge = readChallenge(location.search);
      if (challenge === null) {
        void showProviderBrand();
        showErrorPage("missing");
      } else {
        await startSignIn(challenge);
      }
      return;
    }
    case "reset": {
      const hasToken = new URLSearchParams(location.search).has("token");
      const token = readToken(location.search);
      if (token !== null) {
        showResetConfirm(token);
      } else if (hasToken) {
        showErrorPage("unexpected");
      } else {
        showResetRequest();
      }
      return;
    }
    case "device":
      await showDevice(readUserCode(location.search));
      return;
    case "logged-out":
      showLoggedOut();
      return;
    default:
      showErrorPage("not-found");
  }
}
