/**
 * The provider's brand in the console's header (docs/branding.md):
 * `GET /api/v1/auth/branding` (public). The primary colour becomes the custom property
 * `--brand-primary` through the CSSOM (`style.setProperty`), which the CSP allows, unlike a
 * `style` attribute. Any failure leaves the console's own look: the brand is decoration.
 */
import { useEffect, useState } from "react";

export interface BrandRead {
  productName: string;
  logoUri: string | null;
  primaryColor: string | null;
  termsUri: string | null;
  privacyUri: string | null;
}

const COLOUR = /^#[0-9a-fA-F]{6}$/;

let loaded: Promise<BrandRead | null> | null = null;

function fetchBrand(): Promise<BrandRead | null> {
  loaded ??= fetch("/api/v1/auth/branding", { headers: { Accept: "application/json" }, credentials: "omit" })
    .then(async (response) => {
      if (!response.ok) return null;
      const body = (await response.json()) as Partial<BrandRead>;
      return typeof body.productName === "string" ? (body as BrandRead) : null;
    })
    .catch(() => null);
  return loaded;
}

/** Sets (or clears) the brand colour on `<html>`; primary buttons read it in style.css. */
export function applyBrandColour(colour: string | null, root: HTMLElement = document.documentElement): void {
  if (colour && COLOUR.test(colour)) {
    root.style.setProperty("--brand-primary", colour);
    // The API checked its contrast with white text (WCAG AA), in light and dark mode alike.
    root.style.setProperty("--brand-primary-text", "#ffffff");
  } else {
    root.style.removeProperty("--brand-primary");
    root.style.removeProperty("--brand-primary-text");
  }
}

/** The provider's brand once loaded, or null (not yet, or not available). */
export function useBrand(): BrandRead | null {
  const [brand, setBrand] = useState<BrandRead | null>(null);
  useEffect(() => {
    let live = true;
    void fetchBrand().then((found) => {
      if (!live) return;
      applyBrandColour(found?.primaryColor ?? null);
      setBrand(found);
    });
    return () => {
      live = false;
    };
  }, []);
  return brand;
}
