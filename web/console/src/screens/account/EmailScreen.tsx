import { Screen } from "../../ui/Screen";

export function EmailScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Email">{null}</Screen>;
}
