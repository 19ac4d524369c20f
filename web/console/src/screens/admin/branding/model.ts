/**
 * The provider's brand (`/admin/branding`, issue #28, docs/branding.md) and the mail
 * template previews (`/admin/mail-templates`, docs/mail-templates.md): wire shapes, calls,
 * and the pure rules of the screen (the form's values and body, the contrast hint).
 */
import { ApiError, del, get, put } from "../../../api/client";
import { t } from "../../../i18n";

export const BRANDING_API = "/admin/branding";
export const BRANDING_READ = "idp:branding:read";
export const BRANDING_WRITE = "idp:branding:write";
export const MAIL_TEMPLATES_API = "/admin/mail-templates";

/** The provider's own row; nulls where unset. */
export interface BrandSettings {
  productName: string | null;
  primaryColor: string | null;
  termsUri: string | null;
  privacyUri: string | null;
  logoUri: string | null;
  updatedAt: string | null;
}

/** What the form edits: text for every input. */
export interface BrandValues {
  productName: string;
  primaryColor: string;
  termsUri: string;
  privacyUri: string;
}

export type BrandBody = { [K in keyof BrandValues]: string | null };

export function valuesOf(settings: BrandSettings): BrandValues {
  return {
    productName: settings.productName ?? "",
    primaryColor: settings.primaryColor ?? "",
    termsUri: settings.termsUri ?? "",
    privacyUri: settings.privacyUri ?? "",
  };
}

/** `PUT /admin/branding`: every member, an emptied input as null (the default again). */
export function bodyOf(values: BrandValues): BrandBody {
  const orNull = (value: string): string | null => (value.trim() ? value.trim() : null);
  return {
    productName: orNull(values.productName),
    primaryColor: orNull(values.primaryColor),
    termsUri: orNull(values.termsUri),
    privacyUri: orNull(values.privacyUri),
  };
}

const HEX = /^#[0-9a-fA-F]{6}$/;

export const isColour = (value: string): boolean => HEX.test(value.trim());

/** WCAG 2.x relative luminance of an sRGB `#rrggbb` colour. */
function luminance(hex: string): number {
  const channel = (offset: number): number => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of white text on `colour` (1 to 21), or null when it is no `#rrggbb`. */
export function contrastWithWhite(colour: string): number | null {
  const hex = colour.trim();
  if (!HEX.test(hex)) return null;
  return 1.05 / (luminance(hex) + 0.05);
}

/** WCAG AA for normal text; the provider refuses a colour below it. */
export const AA_RATIO = 4.5;

/** The live hint under the colour input (the provider decides when saving). */
export function contrastHint(colour: string): { text: string; ok: boolean } {
  if (!colour.trim()) return { text: t("admin-branding.colour.default"), ok: true };
  const ratio = contrastWithWhite(colour);
  if (ratio === null) return { text: t("admin-branding.colour.incomplete"), ok: false };
  // Rounded down, as the provider does, so the hint never promises more than it accepts.
  const shown = Math.floor(ratio * 10) / 10;
  const ok = ratio >= AA_RATIO;
  return { text: t(ok ? "admin-branding.colour.passes" : "admin-branding.colour.fails", { ratio: shown }), ok };
}

/** Checks made before sending: only the colour's form (the provider checks the rest). */
export function localErrors(values: BrandValues): Record<string, string> {
  const errors: Record<string, string> = {};
  if (values.primaryColor.trim() && !isColour(values.primaryColor)) errors.primaryColor = t("admin-branding.colour.format");
  return errors;
}

export const loadBranding = (signal?: AbortSignal): Promise<BrandSettings> =>
  get<BrandSettings>(BRANDING_API, undefined, signal);

export const saveBranding = (values: BrandValues): Promise<BrandSettings> =>
  put<BrandSettings>(BRANDING_API, bodyOf(values));

export const removeLogo = (): Promise<void> => del(`${BRANDING_API}/logo`);

/** The logo's field for errors shown at the file input. */
export const LOGO_FIELD = "logo";

/**
 * `PUT /admin/branding/logo` with the image as the body. A refusal is filed under
 * {@link LOGO_FIELD} with the provider's sentence (415 for SVG, 413 for a large file), or the
 * console's own when the provider gave none.
 */
export async function uploadLogo(file: File): Promise<BrandSettings> {
  try {
    return await put<BrandSettings>(`${BRANDING_API}/logo`, file);
  } catch (error) {
    throw explainLogoError(error);
  }
}

export function explainLogoError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const given = error.fieldMessage("body") ?? error.fieldMessage("file") ?? error.problem.detail;
  let message: string | undefined;
  if (error.status === 503) message = t("admin-branding.logo.unavailable");
  else if (error.status === 413) message = given ?? t("admin-branding.logo.too_large");
  else if (error.status === 415) message = given ?? t("admin-branding.logo.wrong_type");
  else if (error.status === 422) message = given;
  if (!message) return error;
  return new ApiError(error.status, { ...error.problem, detail: message, errors: [{ field: LOGO_FIELD, message }] });
}

export const LOGO_TYPES = "image/png,image/jpeg,image/webp";

// --- Mail templates ---------------------------------------------------------------------

export interface MailTemplates {
  templates: { kind: string; name: string }[];
  locales: string[];
}

export interface MailPreview {
  kind: string;
  locale: string;
  subject: string;
  text: string;
  html: string;
}

export const loadMailTemplates = (signal?: AbortSignal): Promise<MailTemplates> =>
  get<MailTemplates>(MAIL_TEMPLATES_API, undefined, signal);

export const loadMailPreview = (kind: string, locale: string, signal?: AbortSignal): Promise<MailPreview> =>
  get<MailPreview>(`${MAIL_TEMPLATES_API}/${encodeURIComponent(kind)}/preview`, { locale }, signal);

/** A template's name in the reader's language; the provider's name for a kind we do not know. */
export function templateName(template: { kind: string; name: string }): string {
  const id = `admin-branding.mail.kind.${template.kind}`;
  const text = t(id);
  return text === id ? template.name : text;
}
