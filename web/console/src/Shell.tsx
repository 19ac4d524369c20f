import { type ReactNode, useEffect, useState } from "react";
import { LanguageSwitcher } from "./LanguageSwitcher";
import { hasScope, signOut, signedIn } from "./auth/session";
import { useBrand } from "./brand";
import { t } from "./i18n";
import { ROUTES, type Route } from "./routes";
import { Link, useLocation } from "./router";

function NavList({ label, routes, path, onPick }: { label: string; routes: Route[]; path: string; onPick: () => void }) {
  if (routes.length === 0) return null;
  return (
    <div className="nav-group">
      <h2 className="nav-heading">{label}</h2>
      <ul>
        {routes.map((route) => {
          const active = path === route.path || (route.path !== "/console/" && path.startsWith(`${route.path}/`));
          return (
            <li key={route.path}>
              <Link to={route.path} aria-current={active ? "page" : undefined} onClick={onPick}>
                {route.nav ? t(route.nav) : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * The frame of every screen: a skip link, the header with the provider's brand, the language
 * switcher, the person and "Sign out", and the navigation (a disclosure on narrow screens). Administration entries appear only
 * for the scopes the person's token carries.
 */
export function Shell({ children }: { children: ReactNode }) {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  const visible = ROUTES.filter((route) => route.nav && hasScope(route.scope));
  const identity = signedIn()?.identity;
  const brand = useBrand();
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        {t("shell.skipToContent")}
      </a>
      <header className="bar">
        <Link to="/console/" className="brand">
          {brand?.logoUri ? <img className="brand-logo" src={brand.logoUri} alt={brand.productName} /> : null}
          {brand ? (
            <>
              {brand.logoUri ? null : <span className="brand-name">{brand.productName}</span>}
              <span className="brand-app">{t("shell.brand.console")}</span>
            </>
          ) : (
            t("shell.brand.fallback")
          )}
        </Link>
        <button
          type="button"
          className="button menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          {t("shell.menu")}
        </button>
        <LanguageSwitcher />
        <div className="who">
          <span className="who-name" title={identity?.email}>
            {identity?.name || identity?.email}
          </span>
          <button type="button" className="button" onClick={signOut}>
            {t("shell.signOut")}
          </button>
        </div>
      </header>
      <div className="layout">
        <nav id="main-nav" aria-label={t("shell.nav.label")} className={menuOpen ? "nav open" : "nav"}>
          <NavList
            label={t("shell.nav.account")}
            routes={visible.filter((r) => r.section === "account")}
            path={path}
            onPick={() => setMenuOpen(false)}
          />
          <NavList
            label={t("shell.nav.admin")}
            routes={visible.filter((r) => r.section === "admin")}
            path={path}
            onPick={() => setMenuOpen(false)}
          />
        </nav>
        <main id="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
