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

export type Section = "account" | "admin";

export interface Route {
  path: string;
  /** The navigation entry; detail screens have none. */
  nav?: string;
  section: Section;
  scope: string;
  screen: ComponentType<{ params: Record<string, string> }>;
}

export const ROUTES: Route[] = [
  { path: "/console/", nav: "Profile", section: "account", scope: "idp:account:read", screen: ProfileScreen },
  { path: "/console/account/email", nav: "Email", section: "account", scope: "idp:account:read", screen: EmailScreen },
  { path: "/console/account/password", nav: "Password", section: "account", scope: "idp:account:read", screen: PasswordScreen },
  { path: "/console/account/authenticator", nav: "Authenticator", section: "account", scope: "idp:account:read", screen: AuthenticatorScreen },
  { path: "/console/account/face", nav: "Face sign-in", section: "account", scope: "idp:account:read", screen: FaceScreen },
  { path: "/console/account/sessions", nav: "Sessions", section: "account", scope: "idp:sessions:read", screen: SessionsScreen },
  { path: "/console/account/connections", nav: "Connected applications", section: "account", scope: "idp:connections:read", screen: ConnectionsScreen },
  { path: "/console/account/permissions", nav: "My permissions", section: "account", scope: "idp:account:read", screen: PermissionsScreen },
  { path: "/console/admin/apis", nav: "APIs and scopes", section: "admin", scope: "idp:apis:read", screen: ApisScreen },
  { path: "/console/admin/apis/:id", section: "admin", scope: "idp:apis:read", screen: ApiScreen },
  { path: "/console/admin/clients", nav: "Clients", section: "admin", scope: "idp:clients:read", screen: ClientsScreen },
  { path: "/console/admin/clients/:id", section: "admin", scope: "idp:clients:read", screen: ClientScreen },
  { path: "/console/admin/groups", nav: "Groups", section: "admin", scope: "idp:groups:read", screen: GroupsScreen },
  { path: "/console/admin/groups/:id", section: "admin", scope: "idp:groups:read", screen: GroupScreen },
  { path: "/console/admin/roles", nav: "Roles", section: "admin", scope: "idp:roles:read", screen: RolesScreen },
  { path: "/console/admin/roles/:id", section: "admin", scope: "idp:roles:read", screen: RoleScreen },
  { path: "/console/admin/users", nav: "Users", section: "admin", scope: "idp:users:read", screen: UsersScreen },
  { path: "/console/admin/users/:id", section: "admin", scope: "idp:users:read", screen: UserScreen },
  { path: "/console/admin/profile-fields", nav: "Profile fields", section: "admin", scope: "idp:profile-fields:read", screen: ProfileFieldsScreen },
  { path: "/console/admin/profile-fields/:id", section: "admin", scope: "idp:profile-fields:read", screen: ProfileFieldScreen },
  { path: "/console/admin/audit", nav: "Audit log", section: "admin", scope: "idp:audit:read", screen: AuditScreen },
];
