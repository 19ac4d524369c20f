import { Screen } from "../../ui/Screen";

export function ProfileScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Profile">{null}</Screen>;
}
