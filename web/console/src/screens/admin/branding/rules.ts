/**
 * The pure rules of a brand (docs/branding.md), the same for the provider's
 * (`/admin/branding`) and a client's (`/admin/clients/{client_id}/branding`): the row and the
 * form's values, the body sent, the colour's form and its WCAG contrast with white text, the
 * logo's file types and refusals, and the calls, given the brand's API path.
 */
import { ApiError, del, get, put } from "../../../api/client";

export const BRANDING_READ = "idp:branding:read";
export const BRANDING_WRITE = "idp:branding:write";

/** A brand's row; nulls where unset (the default, or for a client the provider's value). */
export interface BrandRow {
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

export const EMPTY_BRAND: BrandRow = {
  productName: null,
  primaryColor: null,
  termsUri: null,
  privacyUri: null,
  logoUri: null,
  updatedAt: null,
};

export function valuesOf(brand: BrandRow): BrandValues {
  return {
    productName: brand.productName ?? "",
    primaryColor: brand.primaryColor ?? "",
    termsUri: brand.termsUri ?? "",
    privacyUri: brand.privacyUri ?? "",
  };
}

/** `PUT …/branding`: every member, an emptied input as null (unset again). */
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

/**
 * Whether white text on `colour` reaches WCAG AA. Only such a colour gets a sample button:
 * a sample in a failing colour would itself be unreadable. The provider decides.
 */
export function passesContrast(colour: string): boolean {
  const ratio = contrastWithWhite(colour);
  return ratio !== null && ratio >= AA_RATIO;
}

/**
 * Checks made before sending: only the colour's form (the provider checks the contrast and
 * the rest); `message` is the screen's sentence for a colour that is no `#rrggbb`.
 */
export function colourErrors(values: BrandValues, message: () => string): Record<string, string> {
  return values.primaryColor.trim() && !isColour(values.primaryColor) ? { primaryColor: message() } : {};
}

/** The file input's field name, under which upload refusals are shown. */
export const LOGO_FIELD = "logo";

export const LOGO_TYPES = "image/png,image/jpeg,image/webp";

/** The console's own words for a refused logo, when the provider gave none (and for 503). */
export interface LogoRefusals {
  unavailable: string;
  tooLarge: string;
  wrongType: string;
}

/**
 * The provider's sentence for a refused logo (it names `body` or `file`: SVG 415, too large
 * 413, not the image it claims 422), moved to the file input as {@link LOGO_FIELD}; the
 * console's own words when the provider gave none, and for 503 (no image store), which is
 * no fault of the file.
 */
export function explainLogoError(error: unknown, refusals: () => LogoRefusals): unknown {
  if (!(error instanceof ApiError)) return error;
  const given = error.fieldMessage("body") ?? error.fieldMessage("file") ?? error.problem.detail;
  let message: string | undefined;
  if (error.status === 503) message = refusals().unavailable;
  else if (error.status === 413) message = given ?? refusals().tooLarge;
  else if (error.status === 415) message = given ?? refusals().wrongType;
  else if (error.status === 422) message = given;
  if (!message) return error;
  return new ApiError(error.status, { ...error.problem, detail: message, errors: [{ field: LOGO_FIELD, message }] });
}

/** The calls of the brand at `path` (`/admin/branding` or `/admin/clients/{id}/branding`). */
export function brandApi(path: string, refusals: () => LogoRefusals) {
  return {
    load: (signal?: AbortSignal): Promise<BrandRow> => get<BrandRow>(path, undefined, signal),
    save: (values: BrandValues): Promise<BrandRow> => put<BrandRow>(path, bodyOf(values)),
    /** `DELETE …/branding`: the row goes (for a client, the provider's brand applies in full). */
    reset: (): Promise<void> => del(path),
    removeLogo: (): Promise<void> => del(`${path}/logo`),
    /** `PUT …/branding/logo` with the image as the body; a refusal is filed under {@link LOGO_FIELD}. */
    uploadLogo: async (file: File): Promise<BrandRow> => {
      try {
        return await put<BrandRow>(`${path}/logo`, file);
      } catch (error) {
        throw explainLogoError(error, refusals);
      }
    },
  };
}
