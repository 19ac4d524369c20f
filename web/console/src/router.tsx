/**
 * A small history-API router: the console is one page, and moving between screens must
 * keep the tokens that live in memory (a full page load would drop them).
 */
import { type AnchorHTMLAttributes, type MouseEvent, type ReactNode, useEffect, useState } from "react";

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  for (const listener of listeners) listener();
}

window.addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export interface Location {
  path: string;
  query: URLSearchParams;
}

function here(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(here);
  useEffect(() => {
    const update = (): void => setLocation(here());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return location;
}

/** Replaces the query string of the current screen (filters, paging) without a new entry. */
export function setQuery(values: Record<string, string | null>): void {
  const query = new URLSearchParams(window.location.search);
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === "") query.delete(key);
    else query.set(key, value);
  }
  const text = query.toString();
  navigate(window.location.pathname + (text ? `?${text}` : ""), { replace: true });
}

/**
 * Matches `/console/admin/users/:id` against a path; answers the parameters or null.
 * Parameters are URI-decoded.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const got = path.replace(/\/+$/, "").split("/");
  const wantTrimmed = pattern.replace(/\/+$/, "").split("/");
  if (wantTrimmed.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < wantTrimmed.length; i += 1) {
    const part = wantTrimmed[i] ?? "";
    const value = got[i] ?? "";
    if (part.startsWith(":")) {
      if (!value) return null;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) {
      return null;
    }
  }
  return params;
}

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  to: string;
  children: ReactNode;
}

/** An ordinary link (open in a new tab works) that moves within the page on a plain click. */
export function Link({ to, children, onClick, ...rest }: LinkProps) {
  const click = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={click} {...rest}>
      {children}
    </a>
  );
}
