import { Screen } from "../../ui/Screen";

export function AuthenticatorScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Authenticator">{null}</Screen>;
}
