/**
 * Wire shapes of `/admin/users` (services/admin: `UserRead`, `EffectiveScope`, `RoleRead`,
 * `ScopeRead`, `ProfileFieldRead`) and the few reads that collect every page of a list.
 */
import { get, type Page } from "../../../api/client";

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

export type DataType = "string" | "integer" | "boolean" | "date" | "enum" | "email" | "phone" | "url";

export interface ProfileField {
  id: string;
  key: string;
  label: string;
  dataType: DataType;
  required: boolean;
  enumValues: string[] | null;
  displayOrder: number;
}

export type ProfileValue = string | number | boolean | null;

export const userPath = (id: string): string => `/admin/users/${encodeURIComponent(id)}`;

/** Every item of a paged list (`{items, nextCursor}`), 200 at a time, at most 50 pages. */
export async function everyItem<T>(path: string, signal?: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let round = 0; round < 50; round += 1) {
    const page: Page<T> = await get<Page<T>>(path, { limit: 200, cursor }, signal);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** Every scope of every resource API (`idp` included), by value. */
export async function everyApiScope(signal?: AbortSignal): Promise<ApiScope[]> {
  const apis = await everyItem<{ id: string }>("/admin/apis", signal);
  const lists = await Promise.all(
    apis.map((api) => everyItem<ApiScope>(`/admin/apis/${encodeURIComponent(api.id)}/scopes`, signal)),
  );
  return lists.flat().sort((a, b) => a.value.localeCompare(b.value));
}

/** A notice carried to the next screen (after a delete, the list says so). */
let carried: string | null = null;

export function carryNotice(text: string): void {
  carried = text;
}

export function takeCarried(): string | null {
  const text = carried;
  carried = null;
  return text;
}
