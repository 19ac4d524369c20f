/**
 * Wire shapes of `/admin/users` (services/admin: `UserRead`, `EffectiveScope`, `RoleRead`,
 * `ScopeRead`, `ProfileFieldRead`).
 */
import type { ProfileField as StoredField } from "../fields/model";

export interface User {
  id: string;
  email: string;
  username: string | null;
  displayName: string;
  emailVerified: boolean;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export type { EffectiveScope, ScopeSource } from "../../../api/permissions";

export interface Role {
  id: string;
  name: string;
  description: string;
  scopes: string[];
}

export interface ApiScope {
  id: string;
  value: string;
  description: string;
}

export type { DataType } from "../fields/model";

/** What the person's page reads of a profile field. */
export type ProfileField = Pick<
  StoredField,
  "id" | "key" | "label" | "dataType" | "required" | "enumValues" | "displayOrder"
>;

export type ProfileValue = string | number | boolean | null;

export const userPath = (id: string): string => `/admin/users/${encodeURIComponent(id)}`;
