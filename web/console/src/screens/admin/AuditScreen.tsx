import { Screen } from "../../ui/Screen";

export function AuditScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Audit">{null}</Screen>;
}
