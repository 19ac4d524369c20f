/**
 * Every screen of the console: its path, its title in the navigation, and the scope that
 * shows it. Self-service screens need the `idp:*` scopes every person holds; an
 * administration screen is listed (and opens) only for holders of its read scope.
 */
import type { ComponentType } from "react";
import { AuthenticatorScreen } from "./screens/account/AuthenticatorScreen";
import { ConnectionsScreen } from "./screens/account/ConnectionsScreen";
import { EmailScreen } from "./screens/account/EmailScreen";
import { FaceScreen } from "./screens/account/FaceScreen";
import { PasskeysScreen } from "./screens/account/PasskeysScreen";
import { PasswordScreen } from "./screens/account/PasswordScreen";
import { PermissionsScreen } from "./screens/account/PermissionsScreen";
import { ProfileScreen } from "./screens/account/ProfileScreen";
import { SessionsScreen } from "./screens/account/SessionsScreen";
import { ApiScreen, ApisScreen } from "./screens/admin/ApisScreen";
import { AuditScreen } from "./screens/admin/AuditScreen";
import { ClientScreen, ClientsScreen } from "./screens/admin/ClientsScreen";
import { GroupScreen, GroupsScreen } from "./screens/admin/GroupsScreen";
import { ProfileFieldScreen, ProfileFieldsScreen } from "./screens/admin/ProfileFieldsScreen";
import { RoleScreen, RolesScreen } from "./screens/admin/RolesScreen";
import { UserScreen, UsersScreen } from "./screens/admin/UsersScreen";
import { WebhookScreen, WebhooksScreen } from "./screens/admin/WebhooksScreen";

export type Section = "account" | "admin";

export interface Route {
  path: string;
  /** The navigation entry; detail screens have none. */
  nav?: string;
  section: Section;
  scope: string;
  screen: ComponentType<{ params: Record<string, string> }>;
}

type Screen = Route["screen"];

/** A self-service screen under /console/account/ (the profile is /console/ itself). */
const account = (path: string, nav: string, scope: string, screen: Screen): Route => ({
  path: `/console/${path}`,
  nav,
  section: "account",
  scope,
  screen,
});

/** An administration list and the detail screen of one of its records (`…/:id`). */
const admin = (path: string, nav: string, resource: string, list: Screen, detail?: Screen): Route[] => {
  const scope = `idp:${resource}:read`;
  const routes: Route[] = [{ path: `/console/admin/${path}`, nav, section: "admin", scope, screen: list }];
  if (detail) routes.push({ path: `/console/admin/${path}/:id`, section: "admin", scope, screen: detail });
  return routes;
};

export const ROUTES: Route[] = [
  account("", "Profile", "idp:account:read", ProfileScreen),
  account("account/email", "Email", "idp:account:read", EmailScreen),
  account("account/password", "Password", "idp:account:read", PasswordScreen),
  account("account/authenticator", "Authenticator", "idp:account:read", AuthenticatorScreen),
  account("account/passkeys", "Passkeys", "idp:account:read", PasskeysScreen),
  account("account/face", "Face sign-in", "idp:account:read", FaceScreen),
  account("account/sessions", "Sessions", "idp:sessions:read", SessionsScreen),
  account("account/connections", "Connected applications", "idp:connections:read", ConnectionsScreen),
  account("account/permissions", "My permissions", "idp:account:read", PermissionsScreen),
  ...admin("apis", "APIs and scopes", "apis", ApisScreen, ApiScreen),
  ...admin("clients", "Clients", "clients", ClientsScreen, ClientScreen),
  ...admin("groups", "Groups", "groups", GroupsScreen, GroupScreen),
  ...admin("roles", "Roles", "roles", RolesScreen, RoleScreen),
  ...admin("users", "Users", "users", UsersScreen, UserScreen),
  ...admin("profile-fields", "Profile fields", "profile-fields", ProfileFieldsScreen, ProfileFieldScreen),
  ...admin("webhooks", "Webhooks", "webhooks", WebhooksScreen, WebhookScreen),
  ...admin("audit", "Audit log", "audit", AuditScreen),
];
