/**
 * The shapes of the self-service API (`/entity/*`, docs/entity-api.md) the account screens
 * read, and the sentences for the answers every upload can get.
 */
import { ApiError } from "../../api/client";
import { t } from "../../i18n";
import type { DataType, Validators } from "../admin/fields/model";

export type { DataType, Validators } from "../admin/fields/model";

export interface SchemaField {
  key: string;
  label: string;
  dataType: DataType;
  required: boolean;
  unique: boolean;
  userWritable: boolean;
  validators: Validators;
  enumValues: string[] | null;
  displayOrder: number;
}

export type FieldValue = string | number | boolean | null;

export interface Profile {
  id: string;
  email: string;
  emailVerified: boolean;
  username: string | null;
  displayName: string;
  picture: string | null;
  createdAt: string;
  updatedAt: string;
  fields: Record<string, FieldValue>;
}

export interface TotpStatus {
  enrolled: boolean;
  pending: boolean;
  confirmedAt?: string;
  recoveryCodesLeft?: number;
}

export interface TotpEnrolment {
  secret: string;
  otpauthUri: string;
  qrCode: string;
}

export interface FaceStatus {
  enrolled: boolean;
  enrolledAt?: string | null;
  updatedAt?: string | null;
}

export interface SessionRead {
  id: string;
  createdAt: string;
  lastSeen: string;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
  applications: { clientId: string; name: string }[];
}

export interface Connection {
  clientId: string;
  name: string;
  scopes: { value: string; description: string }[];
  grantedAt: string;
  firstParty: boolean;
}

export type { EffectiveScope, ScopeSource } from "../../api/permissions";

/** The image types the photo and face routes take as a raw body. */
export const IMAGE_TYPES = "image/png,image/jpeg,image/webp";

/**
 * An upload's error in the person's words: 413, 415 and 503 get a sentence of their own
 * (placed next to the file input), a 422 keeps the API's sentence for `body` or `file`.
 */
export function explainUpload(error: unknown, unavailable: string, field: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const say = (message: string): ApiError =>
    new ApiError(error.status, { ...error.problem, detail: message, errors: [{ field, message }] });
  switch (error.status) {
    case 413:
      return say(t("account.upload.tooLarge"));
    case 415:
      return say(t("account.upload.wrongType"));
    case 503:
      return say(unavailable);
    case 422: {
      const message = error.fieldMessage("file") ?? error.fieldMessage("body");
      if (!message) return error;
      // The photo route names the fault ("is not a PNG image"); the face route says a sentence.
      return say(/^[a-z]/.test(message) ? t("account.upload.fileFault", { fault: message.replace(/\.$/, "") }) : message);
    }
    default:
      return error;
  }
}
