import { Screen } from "../../ui/Screen";

export function PermissionsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Permissions">{null}</Screen>;
}
