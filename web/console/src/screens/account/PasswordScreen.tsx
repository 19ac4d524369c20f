import { Screen } from "../../ui/Screen";

export function PasswordScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Password">{null}</Screen>;
}
