import { Screen } from "../../ui/Screen";

export function ProfileFieldsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="ProfileFields">{null}</Screen>;
}

export function ProfileFieldScreen(_props: { params: Record<string, string> }) {
  return <Screen title="ProfileField">{null}</Screen>;
}
